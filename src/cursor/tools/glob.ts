// Glob: a file search sent as grep_args with an empty pattern in
// files_with_matches mode (docs/protocol.md#exec); the card is glob_tool_call.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import type { GlobToolResultSchema, ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import { resultFiles } from "./grep-render.ts";
import { truncateMiddle } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const GlobArgsInput = z.object({
  target_directory: optional(z.string()),
  glob_pattern: z.string().min(1, "must not be empty"),
});
export type GlobToolArgs = z.output<typeof GlobArgsInput>;

export const globTool: Tool<GlobToolArgs> = {
  name: "Glob",
  definition: definitionOf("Glob"),
  emptyCard: () => toolCard({ case: "globToolCall", value: {} }),
  parse: (json) => parseArgs("Glob", GlobArgsInput, json),
  startedCard: (args) => card(args),
  run: runGlob,
};

function card(args: GlobToolArgs, result?: MessageInitShape<typeof GlobToolResultSchema>): ToolCall {
  return toolCard({
    case: "globToolCall",
    value: { args: { targetDirectory: args.target_directory, globPattern: args.glob_pattern }, result },
  });
}

async function runGlob(args: GlobToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const call = ctx.client.exec(
    {
      case: "grepArgs",
      value: {
        pattern: "",
        path: args.target_directory,
        glob: args.glob_pattern,
        outputMode: "files_with_matches",
        toolCallId: ctx.toolCallId,
      },
    },
    { toolCallId: ctx.toolCallId },
  );
  const reply = await nextReply(call, "grepResult");
  const fail = (message: string) => failure(message, card(args, { result: { case: "error", value: { error: message } } }));
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  if (result.case === "error") return fail(`Glob failed: ${result.value.error || "unknown error"}`);
  if (result.case === undefined) return fail("Cursor returned an empty result for the file search.");

  const { files, truncated } = resultFiles(result.value);
  const value = {
    pattern: args.glob_pattern,
    path: args.target_directory ?? result.value.path,
    files,
    totalFiles: files.length,
    clientTruncated: truncated.client,
    ripgrepTruncated: truncated.ripgrep,
  };
  const cut = truncated.client || truncated.ripgrep ? "\n(The list was cut off; use a narrower pattern or directory to see the rest.)" : "";
  const content =
    files.length === 0
      ? `No files match ${args.glob_pattern}.`
      : `${truncateMiddle(files.join("\n"))}\n\n(${files.length} ${files.length === 1 ? "file" : "files"})${cut}`;
  return success(content, card(args, { result: { case: "success", value } }));
}
