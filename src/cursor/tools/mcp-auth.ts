// McpAuth: interaction_query mcp_auth (11). An MCP server that needs the user to
// sign in is the client's to authenticate: the model asks, the user agrees (Cursor
// then runs the server's own sign-in flow) or declines. Offered only when the
// request context says the client supports it (docs/protocol.md#mcp-tools).
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import type { McpAuthResultSchema, ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { interactionReply } from "./exec-reply.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const McpAuthArgsInput = z.object({ server: z.string().trim().min(1, "must not be empty") });
export type McpAuthToolArgs = z.output<typeof McpAuthArgsInput>;

export const mcpAuthTool: Tool<McpAuthToolArgs> = {
  name: "McpAuth",
  definition: definitionOf("McpAuth"),
  emptyCard: () => toolCard({ case: "mcpAuthToolCall", value: {} }),
  parse: (json) => parseArgs("McpAuth", McpAuthArgsInput, json),
  startedCard: (args, toolCallId) => card(args, toolCallId),
  run: runMcpAuth,
};

function card(args: McpAuthToolArgs, toolCallId: string, result?: MessageInitShape<typeof McpAuthResultSchema>): ToolCall {
  return toolCard({ case: "mcpAuthToolCall", value: { args: { serverIdentifier: args.server, toolCallId }, result } });
}

async function runMcpAuth(args: McpAuthToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const response = await ctx.client.interaction({
    case: "mcpAuthRequestQuery",
    value: { args: { serverIdentifier: args.server, toolCallId: ctx.toolCallId } },
  });
  const reply = interactionReply(response, "mcpAuthRequestResponse");
  const fail = (message: string) => failure(message, card(args, ctx.toolCallId, { result: { case: "error", value: { error: message } } }));
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  switch (result.case) {
    case "approved": {
      const done = card(args, ctx.toolCallId, { result: { case: "success", value: { serverIdentifier: args.server } } });
      return success(`The user signed in to the MCP server ${args.server}. Call its tools again.`, done);
    }
    case "rejected": {
      const reason = result.value.reason;
      const text = `The user declined to sign in to the MCP server ${args.server}${reason ? `: ${reason}` : "."} Do not call its tools again in this turn.`;
      return failure(text, card(args, ctx.toolCallId, { result: { case: "rejected", value: { reason } } }));
    }
    case undefined:
      return fail("Cursor returned an empty answer to the sign-in request.");
  }
}
