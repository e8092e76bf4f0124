// The edit pipeline shared by Write and StrReplace (docs/protocol.md#exec): a hidden
// read_args fetches the current file, the server computes the new text, the UI
// gets it as an edit delta, and a second exec writes it with write_args.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { EditResultSchema, ToolCall, WriteResult } from "../../proto/gen/agent/v1/agent_pb.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { emitEditContent } from "./deltas.ts";
import { nextReply, type Reply } from "./exec-reply.ts";
import { lineDiff } from "./line-diff.ts";
import { readErrorText } from "./read.ts";
import { normalizeNewlines } from "./text-lines.ts";
import type { ToolContext, ToolResult } from "./tool-types.ts";

type EditResultInit = MessageInitShape<typeof EditResultSchema>;

/** The file as the hidden read found it. */
type CurrentFile = { exists: false } | { exists: true; text: string; complete: boolean };

export interface EditPlan {
  path: string;
  /** Shown in the card while the edit runs (Write: the new content). */
  streamContent?: string;
  /** Computes the new full text, or a message for the model; nothing is written on failure. */
  compute(current: CurrentFile): Reply<string>;
  /** The model's summary, e.g. "Wrote a.ts (+3 -1 lines)". */
  summary(created: boolean, added: number, removed: number): string;
}

export function editCard(plan: Pick<EditPlan, "path" | "streamContent">, result?: EditResultInit): ToolCall {
  return toolCard({ case: "editToolCall", value: { args: { path: plan.path, streamContent: plan.streamContent }, result } });
}

export async function runEdit(plan: EditPlan, ctx: ToolContext): Promise<ToolResult> {
  const { path } = plan;
  const fail = (
    message: string,
    result: EditResultInit = { result: { case: "error", value: { path, error: message, modelVisibleError: message } } },
  ) => failure(message, editCard(plan, result));

  const read = await readCurrent(path, ctx);
  if (!read.ok) return fail(read.message, read.result);
  const current = read.current;
  const computed = plan.compute(current);
  if (!computed.ok) {
    return current.exists ? fail(computed.error) : fail(computed.error, { result: { case: "fileNotFound", value: { path } } });
  }
  const after = computed.value;
  emitEditContent(ctx, after);

  const write = ctx.client.exec(
    { case: "writeArgs", value: { path, fileText: after, toolCallId: ctx.toolCallId } },
    { toolCallId: ctx.toolCallId },
  );
  const writeReply = await nextReply(write, "writeResult");
  if (!writeReply.ok) return fail(writeReply.error);
  const written = writeReply.value.result;
  if (written.case !== "success") return writeFailure(plan, written, fail);

  const before = current.exists ? current.text : undefined;
  const diff = lineDiff(path, before ?? "", after);
  const value = {
    path,
    linesAdded: diff.added,
    linesRemoved: diff.removed,
    diffString: diff.unified,
    beforeFullFileContent: before,
    afterFullFileContent: after,
  };
  return success(plan.summary(!current.exists, diff.added, diff.removed), editCard(plan, { result: { case: "success", value } }));
}

type ReadOutcome = { ok: true; current: CurrentFile } | { ok: false; message: string; result?: EditResultInit };

/** The hidden read: the file's current text (LF-normalised), or why it cannot be edited. */
async function readCurrent(path: string, ctx: ToolContext): Promise<ReadOutcome> {
  const read = ctx.client.exec({ case: "readArgs", value: { path, toolCallId: ctx.toolCallId } }, { toolCallId: ctx.toolCallId });
  const reply = await nextReply(read, "readResult");
  if (!reply.ok) return { ok: false, message: reply.error };
  const outcome = reply.value.result;
  switch (outcome.case) {
    case "success": {
      const output = outcome.value.output;
      if (output.case === "data") return { ok: false, message: `${path} is a binary file; it cannot be edited as text.` };
      return { ok: true, current: { exists: true, text: normalizeNewlines(output.value ?? ""), complete: !outcome.value.truncated } };
    }
    case "fileNotFound":
      return { ok: true, current: { exists: false } };
    case "permissionDenied":
      return { ok: false, message: readErrorText(path, outcome), result: { result: { case: "readPermissionDenied", value: { path } } } };
    default:
      return { ok: false, message: readErrorText(path, outcome) };
  }
}

function writeFailure(
  plan: EditPlan,
  written: WriteResult["result"],
  fail: (message: string, result?: EditResultInit) => ToolResult,
): ToolResult {
  const { path } = plan;
  switch (written.case) {
    case "permissionDenied": {
      const message = `Permission denied writing ${path}${written.value.error ? `: ${written.value.error}` : "."}`;
      return fail(message, {
        result: { case: "writePermissionDenied", value: { path, error: written.value.error, isReadonly: written.value.isReadonly } },
      });
    }
    case "rejected": {
      const message = `The user rejected the edit to ${path}${written.value.reason ? `: ${written.value.reason}` : "."}`;
      return fail(message, { result: { case: "rejected", value: { path, reason: written.value.reason } } });
    }
    case "noSpace":
      return fail(`No space left on the device while writing ${path}.`);
    case "error":
      return fail(`Error writing ${path}: ${written.value.error || "unknown error"}`);
    case "success":
    case undefined:
      return fail(`Cursor returned an empty write result for ${path}.`);
  }
}
