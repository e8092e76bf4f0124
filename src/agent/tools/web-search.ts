// WebSearch: interaction_query web_search (2) asks the user to approve the
// search. The client only approves; running the search is the server's job, and
// this backend has no search provider yet, so an approved search reports that.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import type { ToolCall, WebSearchResultSchema } from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./card.ts";
import { definitionOf } from "./definitions.ts";
import { interactionReply } from "./exec-reply.ts";
import type { Tool, ToolContext, ToolResult } from "./types.ts";

const WEB_SEARCH_UNAVAILABLE =
  "Web search is not available on this server. Use WebFetch on a URL you know (for example official documentation) instead.";

const WebSearchArgsInput = z.object({
  search_term: z.string().min(1, "must not be empty"),
  explanation: optional(z.string()),
});
export type WebSearchToolArgs = z.output<typeof WebSearchArgsInput>;

export const webSearchTool: Tool<WebSearchToolArgs> = {
  name: "WebSearch",
  definition: definitionOf("WebSearch"),
  emptyCard: () => toolCard({ case: "webSearchToolCall", value: {} }),
  parse: (json) => parseArgs("WebSearch", WebSearchArgsInput, json),
  startedCard: (args, toolCallId) => card(args, toolCallId),
  run: runWebSearch,
};

function card(args: WebSearchToolArgs, toolCallId: string, result?: MessageInitShape<typeof WebSearchResultSchema>): ToolCall {
  return toolCard({ case: "webSearchToolCall", value: { args: { searchTerm: args.search_term, toolCallId }, result } });
}

async function runWebSearch(args: WebSearchToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const response = await ctx.client.interaction({
    case: "webSearchRequestQuery",
    value: { args: { searchTerm: args.search_term, toolCallId: ctx.toolCallId } },
  });
  const reply = interactionReply(response, "webSearchRequestResponse");
  const fail = (message: string) => failure(message, card(args, ctx.toolCallId, { result: { case: "error", value: { error: message } } }));
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  switch (result.case) {
    case "approved":
      return fail(WEB_SEARCH_UNAVAILABLE);
    case "rejected": {
      const reason = result.value.reason;
      const text = `The user declined the web search${reason ? `: ${reason}` : "."}`;
      return success(text, card(args, ctx.toolCallId, { result: { case: "rejected", value: { reason } } }));
    }
    case undefined:
      return fail("Cursor returned an empty answer to the web search request.");
  }
}
