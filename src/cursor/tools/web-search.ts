// WebSearch: interaction_query web_search (2) asks the user to approve the
// search; once approved the server runs it on the configured backend
// (src/cursor/search) and the hits become the result and the card's references.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import type { ToolCall, WebSearchResultSchema } from "../../proto/gen/agent/v1/agent_pb.ts";
import { searchWeb } from "../search/search.ts";
import { type SearchConfig, SearchError, type SearchHit } from "../search/search-types.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { interactionReply } from "./exec-reply.ts";
import { MODEL_TEXT_MAX_CHARS } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

/** Only for a run that offers WebSearch without a backend, which planning prevents (offeredTools). */
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
  const fail = (message: string) => failure(message, card(args, ctx.toolCallId, { result: { case: "error", value: { error: message } } }));
  const backend = ctx.search;
  if (!backend) return fail(WEB_SEARCH_UNAVAILABLE);
  const response = await ctx.client.interaction({
    case: "webSearchRequestQuery",
    value: { args: { searchTerm: args.search_term, toolCallId: ctx.toolCallId } },
  });
  const reply = interactionReply(response, "webSearchRequestResponse");
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  switch (result.case) {
    case "approved":
      return search(backend, args, ctx, fail);
    case "rejected": {
      const reason = result.value.reason;
      const text = `The user declined the web search${reason ? `: ${reason}` : "."}`;
      return success(text, card(args, ctx.toolCallId, { result: { case: "rejected", value: { reason } } }));
    }
    case undefined:
      return fail("Cursor returned an empty answer to the web search request.");
  }
}

async function search(
  backend: SearchConfig,
  args: WebSearchToolArgs,
  ctx: ToolContext,
  fail: (message: string) => ToolResult,
): Promise<ToolResult> {
  let hits: SearchHit[];
  try {
    hits = await searchWeb(backend, args.search_term, ctx.signal);
  } catch (error) {
    if (error instanceof SearchError) return fail(`The web search failed: ${error.message}.`);
    throw error;
  }
  const shown = withinBudget(hits);
  const references = shown.map((hit) => ({ title: hit.title, url: hit.url, chunk: hit.snippet }));
  return success(resultText(args.search_term, shown), card(args, ctx.toolCallId, { result: { case: "success", value: { references } } }));
}

/** Whole hits, in the backend's order, as many as fit the model's text budget. */
function withinBudget(hits: SearchHit[]): SearchHit[] {
  let chars = 0;
  const shown: SearchHit[] = [];
  for (const hit of hits) {
    chars += entry(hit, shown.length + 1).length;
    if (chars > MODEL_TEXT_MAX_CHARS) break;
    shown.push(hit);
  }
  return shown;
}

function resultText(term: string, hits: SearchHit[]): string {
  if (hits.length === 0) return `No web results for "${term}".`;
  return [`Web results for "${term}":`, ...hits.map((hit, i) => entry(hit, i + 1))].join("\n\n");
}

function entry(hit: SearchHit, n: number): string {
  return [`${n}. ${hit.title || hit.url}`, `   ${hit.url}`, ...(hit.snippet ? [`   ${hit.snippet}`] : [])].join("\n");
}
