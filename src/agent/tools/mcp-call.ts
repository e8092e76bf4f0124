// CallMcpTool: mcp_args (11) → mcp_result. The model names the server and the
// tool; the server identifier doubles as provider identifier (docs/protocol.md#exec).
import { create, fromJson, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import {
  McpArgsSchema,
  type McpArgs,
  type McpSuccess,
  type McpToolResultSchema,
  type ToolCall,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import { truncateMiddle } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./types.ts";

/** Some models send the arguments object as a JSON string; accept both. */
const jsonObjectText = (value: unknown): unknown => {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value; // left as is, so validation reports it
  }
};

const CallMcpToolArgsInput = z.object({
  server: z.string().min(1, "must not be empty"),
  toolName: z.string().min(1, "must not be empty"),
  arguments: optional(z.preprocess(jsonObjectText, z.record(z.string(), z.json()))),
});
export type CallMcpToolArgs = z.output<typeof CallMcpToolArgsInput>;

export const callMcpToolTool: Tool<CallMcpToolArgs> = {
  name: "CallMcpTool",
  definition: definitionOf("CallMcpTool"),
  emptyCard: () => toolCard({ case: "mcpToolCall", value: {} }),
  parse: (json) => parseArgs("CallMcpTool", CallMcpToolArgsInput, json),
  startedCard: (args, toolCallId) => card(mcpArgs(args, toolCallId)),
  run: runCallMcpTool,
};

function mcpArgs(args: CallMcpToolArgs, toolCallId: string): McpArgs {
  const values: Record<string, Value> = {};
  for (const [key, value] of Object.entries(args.arguments ?? {})) values[key] = fromJson(ValueSchema, value);
  return create(McpArgsSchema, {
    name: args.toolName,
    args: values,
    toolCallId,
    providerIdentifier: args.server,
    toolName: args.toolName,
    serverIdentifier: args.server,
  });
}

function card(args: McpArgs, result?: MessageInitShape<typeof McpToolResultSchema>): ToolCall {
  return toolCard({ case: "mcpToolCall", value: { args, result } });
}

async function runCallMcpTool(args: CallMcpToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const sent = mcpArgs(args, ctx.toolCallId);
  const call = ctx.client.exec({ case: "mcpArgs", value: sent }, { toolCallId: ctx.toolCallId });
  const fail = (message: string) => failure(message, card(sent, { result: { case: "error", value: { error: message } } }));
  for (;;) {
    const reply = await nextReply(call, "mcpResult");
    if (!reply.ok) return fail(reply.error);
    const result = reply.value.result;
    switch (result.case) {
      case "approved":
        continue; // the user allowed the call; its result follows
      case "success": {
        const text = mcpText(result.value);
        const done = card(sent, { result: { case: "success", value: result.value } });
        return result.value.isError
          ? failure(text || "The MCP tool reported an error.", done)
          : success(text || "(The MCP tool returned no content.)", done);
      }
      case "error":
        return fail(`The MCP tool failed: ${result.value.error || "unknown error"}`);
      case "rejected": {
        const text = `The user rejected the MCP tool call${result.value.reason ? `: ${result.value.reason}` : "."}`;
        return failure(text, card(sent, { result: { case: "rejected", value: result.value } }));
      }
      case "permissionDenied": {
        const text = `Permission denied calling the MCP tool${result.value.error ? `: ${result.value.error}` : "."}`;
        return failure(text, card(sent, { result: { case: "permissionDenied", value: result.value } }));
      }
      case "toolNotFound": {
        const available = result.value.availableTools.length > 0 ? ` Available tools: ${result.value.availableTools.join(", ")}.` : "";
        return fail(`Server ${args.server} has no tool named ${args.toolName}.${available}`);
      }
      case "serverNotFound": {
        const available =
          result.value.availableServers.length > 0 ? ` Available servers: ${result.value.availableServers.join(", ")}.` : "";
        return fail(`No MCP server named ${args.server}.${available}`);
      }
      case undefined:
        return fail("Cursor returned an empty MCP result.");
    }
  }
}

function mcpText(result: McpSuccess): string {
  const parts = result.content.map((item): string => {
    switch (item.content.case) {
      case "text":
        return item.content.value.text;
      case "image":
        return `[image: ${item.content.value.mimeType || "unknown type"}, ${item.content.value.data.length} bytes]`;
      default:
        return "";
    }
  });
  const text = parts.filter((p) => p !== "").join("\n");
  if (text === "" && result.structuredContent !== undefined) return truncateMiddle(JSON.stringify(result.structuredContent));
  return truncateMiddle(text);
}
