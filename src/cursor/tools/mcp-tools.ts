// GetMcpTools: mcp_state_exec_args (36) → mcp_state_exec_result, rendered as a
// readable catalogue of servers, their instructions and their tools.
import { toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { GetMcpToolsAgentResultSchema, McpStateServer, McpToolDefinition, ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import { truncateMiddle } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const GetMcpToolsArgsInput = z.object({ server: optional(z.string()) });
export type GetMcpToolsToolArgs = z.output<typeof GetMcpToolsArgsInput>;

export const getMcpToolsTool: Tool<GetMcpToolsToolArgs> = {
  name: "GetMcpTools",
  definition: definitionOf("GetMcpTools"),
  emptyCard: () => toolCard({ case: "getMcpToolsToolCall", value: {} }),
  parse: (json) => parseArgs("GetMcpTools", GetMcpToolsArgsInput, json),
  startedCard: (args, toolCallId) => card(args, toolCallId),
  run: runGetMcpTools,
};

function card(args: GetMcpToolsToolArgs, toolCallId: string, result?: MessageInitShape<typeof GetMcpToolsAgentResultSchema>): ToolCall {
  return toolCard({ case: "getMcpToolsToolCall", value: { args: { server: args.server, toolCallId }, result } });
}

async function runGetMcpTools(args: GetMcpToolsToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const server = args.server?.trim() || undefined;
  const call = ctx.client.exec(
    { case: "mcpStateExecArgs", value: { serverIdentifiers: server ? [server] : [], kickOnly: false } },
    { toolCallId: ctx.toolCallId },
  );
  const reply = await nextReply(call, "mcpStateExecResult");
  const fail = (message: string) => failure(message, card(args, ctx.toolCallId, { result: { case: "error", value: { error: message } } }));
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  switch (result.case) {
    case "success": {
      const content = renderServers(result.value.servers, server);
      return success(content, card(args, ctx.toolCallId, { result: { case: "success", value: { content } } }));
    }
    case "error":
      return fail(`Reading the MCP servers failed: ${result.value.error || "unknown error"}`);
    case "rejected":
      return fail(`Reading the MCP servers was rejected${result.value.reason ? `: ${result.value.reason}` : "."}`);
    case undefined:
      return fail("Cursor returned an empty MCP state.");
  }
}

function renderServers(servers: McpStateServer[], requested: string | undefined): string {
  if (servers.length === 0) return requested ? `No MCP server named ${requested} is configured.` : "No MCP servers are configured.";
  return truncateMiddle(servers.map(renderServer).join("\n\n"));
}

function renderServer(server: McpStateServer): string {
  const status = server.status ? `, status: ${server.status}` : "";
  const lines = [`Server ${server.serverName || server.serverIdentifier} (server: "${server.serverIdentifier}"${status})`];
  for (const instructions of server.instructions) {
    if (instructions.instructions) lines.push(`Instructions: ${instructions.instructions}`);
  }
  if (server.tools.length === 0) lines.push("No tools.");
  for (const tool of server.tools) lines.push(...renderTool(tool));
  return lines.join("\n");
}

function renderTool(tool: McpToolDefinition): string[] {
  const lines = [`- ${tool.toolName || tool.name}${tool.description ? `: ${tool.description}` : ""}`];
  const schema = tool.inputSchemaJson ?? (tool.inputSchema ? JSON.stringify(toJson(ValueSchema, tool.inputSchema)) : undefined);
  if (schema) lines.push(`  input schema: ${schema}`);
  return lines;
}
