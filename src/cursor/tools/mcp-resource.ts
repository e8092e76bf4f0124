// FetchMcpResource: read_mcp_resource_exec_args (18) → read_mcp_resource_exec_result.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import {
  ReadMcpResourceExecArgsSchema,
  type ReadMcpResourceExecArgs,
  type ReadMcpResourceExecResultSchema,
  type ReadMcpResourceSuccess,
  type ToolCall,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import { truncateMiddle } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const FetchMcpResourceArgsInput = z.object({
  server: z.string().min(1, "must not be empty"),
  uri: z.string().min(1, "must not be empty"),
  downloadPath: optional(z.string()),
});
export type FetchMcpResourceToolArgs = z.output<typeof FetchMcpResourceArgsInput>;

export const fetchMcpResourceTool: Tool<FetchMcpResourceToolArgs> = {
  name: "FetchMcpResource",
  definition: definitionOf("FetchMcpResource"),
  emptyCard: () => toolCard({ case: "readMcpResourceToolCall", value: {} }),
  parse: (json) => parseArgs("FetchMcpResource", FetchMcpResourceArgsInput, json),
  startedCard: (args, toolCallId) => card(resourceArgs(args, toolCallId)),
  run: runFetchMcpResource,
};

function resourceArgs(args: FetchMcpResourceToolArgs, toolCallId: string): ReadMcpResourceExecArgs {
  return create(ReadMcpResourceExecArgsSchema, { server: args.server, uri: args.uri, downloadPath: args.downloadPath, toolCallId });
}

function card(args: ReadMcpResourceExecArgs, result?: MessageInitShape<typeof ReadMcpResourceExecResultSchema>): ToolCall {
  return toolCard({ case: "readMcpResourceToolCall", value: { args, result } });
}

async function runFetchMcpResource(args: FetchMcpResourceToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const sent = resourceArgs(args, ctx.toolCallId);
  const call = ctx.client.exec({ case: "readMcpResourceExecArgs", value: sent }, { toolCallId: ctx.toolCallId });
  const reply = await nextReply(call, "readMcpResourceExecResult");
  if (!reply.ok) return failure(reply.error, card(sent, { result: { case: "error", value: { uri: args.uri, error: reply.error } } }));
  const result = reply.value.result;
  const done = card(sent, reply.value);
  switch (result.case) {
    case "success":
      return success(resourceText(result.value, args), done);
    case "error":
      return failure(`Reading ${args.uri} failed: ${result.value.error || "unknown error"}`, done);
    case "rejected":
      return failure(`The user rejected reading ${args.uri}${result.value.reason ? `: ${result.value.reason}` : "."}`, done);
    case "notFound":
      return failure(`Server ${args.server} has no resource ${args.uri}.`, done);
    case undefined:
      return failure(`Cursor returned an empty result for ${args.uri}.`, done);
  }
}

function resourceText(resource: ReadMcpResourceSuccess, args: FetchMcpResourceToolArgs): string {
  const saved = resource.downloadPath ?? args.downloadPath;
  if (saved) return `Saved ${resource.uri || args.uri} to ${saved}.`;
  const type = resource.mimeType ? ` (${resource.mimeType})` : "";
  const head = `Resource ${resource.uri || args.uri}${type}`;
  switch (resource.content.case) {
    case "text":
      return `${head}\n\n${truncateMiddle(resource.content.value)}`;
    case "blob":
      return `${head} is binary (${resource.content.value.length} bytes); its content is not shown.`;
    case undefined:
      return `${head} is empty.`;
  }
}
