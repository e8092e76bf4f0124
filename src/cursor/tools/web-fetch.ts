// WebFetch: interaction_query web_fetch (9) for approval, then fetch_args (20)
// so the client fetches the page from the user's machine.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import type { FetchSuccess, ToolCall, WebFetchResultSchema } from "../../proto/gen/agent/v1/agent_pb.ts";
import { parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { interactionReply, nextReply } from "./exec-reply.ts";
import { truncateMiddle } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

const WebFetchArgsInput = z.object({
  url: z
    .string()
    .trim()
    .refine((url) => /^https?:\/\/\S+$/i.test(url), "must be an http:// or https:// URL"),
});
export type WebFetchToolArgs = z.output<typeof WebFetchArgsInput>;

export const webFetchTool: Tool<WebFetchToolArgs> = {
  name: "WebFetch",
  definition: definitionOf("WebFetch"),
  emptyCard: () => toolCard({ case: "webFetchToolCall", value: {} }),
  parse: (json) => parseArgs("WebFetch", WebFetchArgsInput, json),
  startedCard: (args, toolCallId) => card(args, toolCallId),
  run: runWebFetch,
};

function card(args: WebFetchToolArgs, toolCallId: string, result?: MessageInitShape<typeof WebFetchResultSchema>): ToolCall {
  return toolCard({ case: "webFetchToolCall", value: { args: { url: args.url, toolCallId }, result } });
}

async function runWebFetch(args: WebFetchToolArgs, ctx: ToolContext): Promise<ToolResult> {
  const { url } = args;
  const fail = (message: string) =>
    failure(message, card(args, ctx.toolCallId, { result: { case: "error", value: { url, error: message } } }));
  const response = await ctx.client.interaction({ case: "webFetchRequestQuery", value: { args: { url, toolCallId: ctx.toolCallId } } });
  const approval = interactionReply(response, "webFetchRequestResponse");
  if (!approval.ok) return fail(approval.error);
  const decision = approval.value.result;
  if (decision.case === "rejected") {
    const reason = decision.value.reason;
    const text = `The user declined fetching ${url}${reason ? `: ${reason}` : "."}`;
    return success(text, card(args, ctx.toolCallId, { result: { case: "rejected", value: { reason } } }));
  }
  if (decision.case !== "approved") return fail("Cursor returned an empty answer to the fetch request.");

  const call = ctx.client.exec({ case: "fetchArgs", value: { url, toolCallId: ctx.toolCallId } }, { toolCallId: ctx.toolCallId });
  const reply = await nextReply(call, "fetchResult");
  if (!reply.ok) return fail(reply.error);
  const result = reply.value.result;
  switch (result.case) {
    case "success":
      return success(
        fetchedText(result.value, url),
        card(args, ctx.toolCallId, {
          result: { case: "success", value: { url: result.value.url || url, markdown: result.value.content } },
        }),
      );
    case "error":
      return fail(`Fetching ${url} failed: ${result.value.error || "unknown error"}`);
    case undefined:
      return fail(`Cursor returned an empty result for ${url}.`);
  }
}

function fetchedText(page: FetchSuccess, url: string): string {
  const facts = [page.statusCode ? `status ${page.statusCode}` : "", page.contentType].filter(Boolean).join(", ");
  const head = `Fetched ${page.url || url}${facts ? ` (${facts})` : ""}`;
  return `${head}\n\n${page.content === "" ? "(empty page)" : truncateMiddle(page.content)}`;
}
