// Delete: delete_args → delete_result; the card carries the client's result as is.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import type { DeleteResult, DeleteResultSchema, ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { parseArgs, withAliases } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const DeleteArgsInput = z.preprocess(
  withAliases("path", ["file_path", "filePath"]),
  z.object({ path: z.string().min(1, "must not be empty") }),
);
export type DeleteToolArgs = z.output<typeof DeleteArgsInput>;

export const deleteTool: Tool<DeleteToolArgs> = {
  name: "Delete",
  definition: definitionOf("Delete"),
  emptyCard: () => toolCard({ case: "deleteToolCall", value: {} }),
  parse: (json) => parseArgs("Delete", DeleteArgsInput, json),
  startedCard: (args, toolCallId) => card(args, toolCallId),
  run: runDelete,
};

function card(args: DeleteToolArgs, toolCallId: string, result?: MessageInitShape<typeof DeleteResultSchema>): ToolCall {
  return toolCard({ case: "deleteToolCall", value: { args: { path: args.path, toolCallId }, result } });
}

async function runDelete(args: DeleteToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const call = ctx.client.exec(
    { case: "deleteArgs", value: { path: args.path, toolCallId: ctx.toolCallId } },
    { toolCallId: ctx.toolCallId },
  );
  const reply = await nextReply(call, "deleteResult");
  if (!reply.ok) {
    return failure(reply.error, card(args, ctx.toolCallId, { result: { case: "error", value: { path: args.path, error: reply.error } } }));
  }
  const result = reply.value;
  const text = deleteText(args.path, result.result);
  if (result.result.case === "success") return success(text, card(args, ctx.toolCallId, result));
  return failure(text, card(args, ctx.toolCallId, result));
}

function deleteText(path: string, result: DeleteResult["result"]): string {
  switch (result.case) {
    case "success":
      return `Deleted ${path}`;
    case "fileNotFound":
      return `File not found: ${path}`;
    case "notFile":
      return `${path} is not a file${result.value.actualType ? ` (it is a ${result.value.actualType})` : ""}; nothing was deleted.`;
    case "permissionDenied":
      return `Permission denied deleting ${path}${result.value.clientVisibleError ? `: ${result.value.clientVisibleError}` : "."}`;
    case "fileBusy":
      return `${path} is in use by another process and was not deleted.`;
    case "rejected":
      return `The user rejected deleting ${path}${result.value.reason ? `: ${result.value.reason}` : "."}`;
    case "error":
      return `Error deleting ${path}: ${result.value.error || "unknown error"}`;
    case undefined:
      return `Cursor returned an empty delete result for ${path}.`;
  }
}
