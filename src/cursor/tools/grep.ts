// Grep: grep_args → grep_result. The card carries the args sent and the
// client's result as is.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import { GrepArgsSchema, type GrepArgs, type GrepResultSchema, type ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { boolean, integer, optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import { renderGrep } from "./grep-render.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const GrepArgsInput = z.object({
  pattern: z.string().min(1, "must not be empty"),
  path: optional(z.string()),
  glob: optional(z.string()),
  output_mode: optional(z.enum(["content", "files_with_matches", "count"])),
  "-A": optional(integer(0)),
  "-B": optional(integer(0)),
  "-C": optional(integer(0)),
  "-i": optional(boolean),
  type: optional(z.string()),
  head_limit: optional(integer(0)),
  multiline: optional(boolean),
});
export type GrepToolArgs = z.output<typeof GrepArgsInput>;

export const grepTool: Tool<GrepToolArgs> = {
  name: "Grep",
  definition: definitionOf("Grep"),
  emptyCard: () => toolCard({ case: "grepToolCall", value: {} }),
  parse: (json) => parseArgs("Grep", GrepArgsInput, json),
  startedCard: (args, toolCallId) => card(grepArgs(args, toolCallId)),
  run: runGrep,
};

function grepArgs(args: GrepToolArgs, toolCallId: string): GrepArgs {
  return create(GrepArgsSchema, {
    pattern: args.pattern,
    path: args.path,
    glob: args.glob,
    outputMode: args.output_mode,
    contextBefore: args["-B"],
    contextAfter: args["-A"],
    context: args["-C"],
    caseInsensitive: args["-i"],
    type: args.type,
    headLimit: args.head_limit,
    multiline: args.multiline,
    toolCallId,
  });
}

function card(args: GrepArgs, result?: MessageInitShape<typeof GrepResultSchema>): ToolCall {
  return toolCard({ case: "grepToolCall", value: { args, result } });
}

async function runGrep(args: GrepToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const sent = grepArgs(args, ctx.toolCallId);
  const call = ctx.client.exec({ case: "grepArgs", value: sent }, { toolCallId: ctx.toolCallId });
  const reply = await nextReply(call, "grepResult");
  if (!reply.ok) return failure(reply.error, card(sent, { result: { case: "error", value: { error: reply.error } } }));
  const result = reply.value.result;
  switch (result.case) {
    case "success":
      return success(renderGrep(result.value), card(sent, reply.value));
    case "error":
      return failure(`Grep failed: ${result.value.error || "unknown error"}`, card(sent, reply.value));
    case undefined:
      return failure("Cursor returned an empty grep result.", card(sent, reply.value));
  }
}
