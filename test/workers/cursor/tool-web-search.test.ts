// WebSearch with the configured backend (BYOK_SEARCH → the fake search server):
// approval first, then the search on the server; results, rejections and
// backend failures as the model's tool result and the client's card.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { InteractionQuery, WebSearchRequestResponseSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import type { AppEnv } from "../../../src/core/env.ts";
import { chatText, chatToolCalls, createScenario, type Scenario } from "../../support/fake-provider.ts";
import { clientMessage, startTurn, type FrameReader } from "../../support/cursor-client.ts";
import { answers, createSearchScenario, type Hit } from "../../support/fake-search.ts";
import type { FakeSearchResponse } from "../../support/fake-search-types.ts";

interface ChatRequest {
  messages: { role: string; content: string | null; tool_call_id?: string }[];
  tools?: { function: { name: string } }[];
}

interface WebSearchCard {
  args?: { searchTerm: string };
  result?: {
    result: { case: string; value: { references?: { title: string; url: string; chunk: string }[]; error?: string; reason?: string } };
  };
}

const searchConfig = JSON.parse((env as unknown as AppEnv).BYOK_SEARCH ?? "{}") as { api_key: string; timeout_ms: number };

const HITS: Hit[] = [
  {
    title: "Durable Objects overview",
    url: "https://developers.cloudflare.com/durable-objects/",
    snippet: "Stateful <strong>serverless</strong> objects.",
  },
  {
    title: "SQLite in Durable Objects",
    url: "https://developers.cloudflare.com/durable-objects/sqlite/",
    snippet: "Each object has its own SQLite.",
  },
  { title: "Alarms", url: "https://developers.cloudflare.com/durable-objects/alarms/", snippet: "Wake an object later." },
  { title: "A fourth result", url: "https://example.com/fourth", snippet: "Beyond max_results." },
];

type Answer = { case: "approved" } | { case: "rejected"; reason: string };

/** Runs one turn whose model calls WebSearch once, answering the approval with `answer`. */
async function searchTurn(backend: FakeSearchResponse[], answer: Answer = { case: "approved" }) {
  const search = await createSearchScenario(backend);
  const term = `durable objects sqlite ${search.marker}`;
  const provider = await createScenario([
    chatToolCalls([{ id: "call-ws", name: "WebSearch", args: [JSON.stringify({ search_term: term })] }]),
    chatText(["Here is what I found."]),
  ]);
  const queries: InteractionQuery[] = [];
  const { reader } = await startTurn(
    { conversationId: crypto.randomUUID(), text: `look it up ${provider.marker}` },
    {
      onInteraction: (query, r) => {
        queries.push(query);
        const value: MessageInitShape<typeof WebSearchRequestResponseSchema> =
          answer.case === "approved"
            ? { result: { case: "approved", value: {} } }
            : { result: { case: "rejected", value: { reason: answer.reason } } };
        return r.send(
          clientMessage({
            message: { case: "interactionResponse", value: { id: query.id, result: { case: "webSearchRequestResponse", value } } },
          }),
        );
      },
    },
  );
  expect(await reader.end()).toEqual({});
  return { search, provider, reader, queries, term };
}

async function toolResult(provider: Scenario) {
  const [, second] = await provider.requests(2);
  const message = (JSON.parse(second!.body) as ChatRequest).messages.at(-1);
  expect(message).toMatchObject({ role: "tool", tool_call_id: "call-ws" });
  return message!.content ?? "";
}

function completedCard(reader: FrameReader): WebSearchCard {
  const completed = reader.updates().find((u) => u.case === "toolCallCompleted")?.value as {
    toolCall: { tool: { case: string; value: WebSearchCard } };
  };
  expect(completed.toolCall.tool.case).toBe("webSearchToolCall");
  return completed.toolCall.tool.value;
}

describe("WebSearch with a search backend", () => {
  it("offers WebSearch to the model when a backend is configured", async () => {
    const provider = await createScenario([chatText(["hi"])]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `hello ${provider.marker}` });
    expect(await reader.end()).toEqual({});
    const [first] = await provider.requests(1);
    expect((JSON.parse(first!.body) as ChatRequest).tools?.map((t) => t.function.name)).toContain("WebSearch");
  });

  it("searches after the user approves and gives the model and the card the results, bounded by max_results", async () => {
    const { search, provider, reader, queries, term } = await searchTurn([answers.tavily(HITS)]);

    expect(queries.map((q) => q.query.case)).toEqual(["webSearchRequestQuery"]);
    const [request] = await search.requests(1);
    expect(request).toMatchObject({ method: "POST", path: "/search" });
    expect(request!.headers.authorization).toBe(`Bearer ${searchConfig.api_key}`);
    expect(JSON.parse(request!.body)).toEqual({ query: term, max_results: 3 });

    const content = await toolResult(provider);
    for (const hit of HITS.slice(0, 3)) {
      expect(content).toContain(hit.title);
      expect(content).toContain(hit.url);
    }
    expect(content).toContain("Stateful serverless objects."); // markup removed
    expect(content).not.toContain("fourth");

    const card = completedCard(reader);
    expect(card.args?.searchTerm).toBe(term);
    expect(card.result?.result.case).toBe("success");
    expect(card.result?.result.value.references).toMatchObject(
      HITS.slice(0, 3).map((h) => ({ title: h.title, url: h.url, chunk: h.snippet.replace(/<\/?strong>/g, "") })),
    );
    expect(reader.text()).toBe("Here is what I found.");
  });

  it("tells the model the user declined, with the reason, and does not search", async () => {
    const { search, provider, reader } = await searchTurn([answers.tavily(HITS)], { case: "rejected", reason: "not now" });
    expect(await toolResult(provider)).toBe("The user declined the web search: not now");
    expect(completedCard(reader).result?.result).toMatchObject({ case: "rejected", value: { reason: "not now" } });
    expect(await search.requests()).toEqual([]);
  });

  it("turns a backend error into a tool error without the key, and the run goes on", async () => {
    const { provider, reader } = await searchTurn([{ status: 500, body: JSON.stringify({ error: `bad key ${searchConfig.api_key}` }) }]);
    const content = await toolResult(provider);
    expect(content).toBe("The web search failed: Tavily answered HTTP 500.");
    const card = completedCard(reader);
    expect(card.result?.result).toMatchObject({ case: "error", value: { error: content } });
    expect(JSON.stringify(reader.updates(), (_, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain(searchConfig.api_key);
    expect(reader.text()).toBe("Here is what I found.");
  });

  it("turns a backend that does not answer in time into a tool error, and the run goes on", async () => {
    const { provider, reader } = await searchTurn([{ hang: true }]);
    expect(await toolResult(provider)).toBe(`The web search failed: Tavily did not answer within ${searchConfig.timeout_ms / 1000} s.`);
    expect(completedCard(reader).result?.result.case).toBe("error");
    expect(reader.text()).toBe("Here is what I found.");
  });
});
