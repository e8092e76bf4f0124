// Read: read_args → read_result. The model gets the text with line numbers
// ("     7|text") counted from where the window starts, or an image file as an image.
import { z } from "zod";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ReadResult, ReadSuccess, ReadToolResultSchema, ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { AppError } from "../../core/errors.ts";
import { IMAGE_MAX_BYTES, imagePartOf } from "../../provider/images.ts";
import { integer, optional, parseArgs, withAliases } from "./args.ts";
import { failure, success, toolCard, toUint32 } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import { splitLines } from "./text-lines.ts";
import { MODEL_TEXT_MAX_CHARS } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

/** Longer lines (minified code, data) are cut so one line cannot fill the budget. */
const LINE_MAX_CHARS = 2_000;

const ReadArgsInput = z.preprocess(
  withAliases("path", ["file_path", "filePath"]),
  z.object({
    path: z.string().min(1, "must not be empty"),
    offset: optional(integer()),
    limit: optional(integer(1)),
  }),
);
export type ReadToolArgs = z.output<typeof ReadArgsInput>;

type ReadCardResult = MessageInitShape<typeof ReadToolResultSchema>;

export const readTool: Tool<ReadToolArgs> = {
  name: "Read",
  definition: definitionOf("Read"),
  emptyCard: () => toolCard({ case: "readToolCall", value: {} }),
  parse: (json) => parseArgs("Read", ReadArgsInput, json),
  startedCard: (args) => card(args),
  run: runRead,
};

function card(args: ReadToolArgs, result?: ReadCardResult): ToolCall {
  return toolCard({
    case: "readToolCall",
    value: { args: { path: args.path, offset: args.offset, limit: args.limit }, result },
  });
}

async function runRead(args: ReadToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const call = ctx.client.exec(
    { case: "readArgs", value: { path: args.path, toolCallId: ctx.toolCallId, offset: args.offset, limit: args.limit } },
    { toolCallId: ctx.toolCallId },
  );
  const reply = await nextReply(call, "readResult");
  if (!reply.ok) return readFailure(args, reply.error);
  const result = reply.value.result;
  if (result.case !== "success") return readFailure(args, readErrorText(args.path, result));
  const read = await withBlobOutput(result.value, ctx);
  return typeof read === "string" ? readFailure(args, read) : readSuccess(args, read);
}

/**
 * The read with its output inline: a client may leave it in a blob of its own
 * (output_blob_id, docs/protocol.md#exec), read with get_blob; or why it could not be read.
 */
async function withBlobOutput(read: ReadSuccess, ctx: ToolContext): Promise<ReadSuccess | string> {
  if (read.output.case !== undefined || !read.outputBlobId?.byteLength) return read;
  let bytes: Uint8Array;
  try {
    bytes = await ctx.readBlob(read.outputBlobId, `the content of ${read.path || "the file"}`);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return `Could not get the content of ${read.path || "the file"} from Cursor: ${err.message}`;
  }
  const text = imagePartOf(bytes) ? undefined : utf8(bytes);
  return { ...read, output: text === undefined ? { case: "data", value: bytes } : { case: "content", value: text } };
}

/** The bytes as text, or undefined when they are not UTF-8 (a binary file). */
function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}

function readFailure(args: ReadToolArgs, message: string): ToolResult {
  return failure(message, card(args, { result: { case: "error", value: { errorMessage: message } } }));
}

/** A short message for every non-success read outcome. */
export function readErrorText(path: string, result: ReadResult["result"]): string {
  switch (result.case) {
    case "fileNotFound":
      return `File not found: ${path}`;
    case "permissionDenied":
      return `Permission denied: ${path}`;
    case "rejected":
      return `Reading ${path} was rejected${result.value.reason ? `: ${result.value.reason}` : "."}`;
    case "invalidFile":
      return `Cannot read ${path}${result.value.reason ? `: ${result.value.reason}` : ": not a readable file."}`;
    case "error":
      return `Error reading ${path}: ${result.value.error || "unknown error"}`;
    case "success":
    case undefined:
      return `Cursor returned an empty read result for ${path}`;
  }
}

function readSuccess(args: ReadToolArgs, read: ReadSuccess): ToolResult {
  const path = read.path || args.path;
  const base = { path, totalLines: Math.max(0, read.totalLines), fileSize: toUint32(read.fileSize), exceededLimit: read.truncated };
  if (read.output.case === "data") {
    const data = read.output.value;
    const done = card(args, { result: { case: "success", value: { ...base, output: { case: "data", value: data } } } });
    // An image file goes to the model as an image (docs/providers.md#images).
    const image = data.length <= IMAGE_MAX_BYTES ? imagePartOf(data) : undefined;
    if (image) return { ...success(`${path} is an image (${image.mimeType}, ${data.length} bytes), attached.`, done), images: [image] };
    return success(`${path} is a binary file (${data.length} bytes); its content is not shown.`, done);
  }
  const window = textWindow(read.output.value ?? "", args, read);
  const isEmpty = window.lines.length === 0;
  const value = {
    ...base,
    isEmpty,
    output: { case: "content" as const, value: window.lines.join("\n") },
    readRange: isEmpty ? undefined : { startLine: window.first, endLine: window.first + window.lines.length - 1 },
  };
  return success(modelText(path, window, read), card(args, { result: { case: "success", value } }));
}

interface TextWindow {
  /** Number of the first line shown, from 1. */
  first: number;
  lines: string[];
}

/**
 * The lines to show. When the client did not apply offset/limit itself
 * (range_applied false), the window is cut here.
 */
function textWindow(text: string, args: ReadToolArgs, read: ReadSuccess): TextWindow {
  const lines = splitLines(text);
  const total = read.totalLines > 0 ? read.totalLines : lines.length;
  const first = firstLine(args.offset, total);
  if (read.rangeApplied) return { first, lines };
  const end = args.limit === undefined ? lines.length : first - 1 + args.limit;
  return { first, lines: lines.slice(first - 1, end) };
}

function firstLine(offset: number | undefined, total: number): number {
  if (offset === undefined || offset === 0) return 1;
  if (offset > 0) return offset;
  return Math.max(1, total + offset + 1); // negative: counted back from the end
}

function modelText(path: string, window: TextWindow, read: ReadSuccess): string {
  if (window.lines.length === 0) {
    return read.totalLines > 0 ? `No lines in that range; ${path} has ${read.totalLines} lines.` : `${path} is empty.`;
  }
  const numbered: string[] = [];
  let size = 0;
  for (const [i, line] of window.lines.entries()) {
    const shown = line.length > LINE_MAX_CHARS ? `${line.slice(0, LINE_MAX_CHARS)}… [line cut at ${LINE_MAX_CHARS} characters]` : line;
    const entry = `${String(window.first + i).padStart(6)}|${shown}`;
    size += entry.length + 1;
    if (size > MODEL_TEXT_MAX_CHARS) {
      const next = window.first + i;
      numbered.push(`[Output cut at line ${next - 1}; read on with offset=${next}.]`);
      return numbered.join("\n");
    }
    numbered.push(entry);
  }
  if (read.truncated) {
    const last = window.first + window.lines.length - 1;
    numbered.push(`[File truncated at line ${last} of ${read.totalLines || "?"}; read on with offset=${last + 1}.]`);
  }
  return numbered.join("\n");
}
