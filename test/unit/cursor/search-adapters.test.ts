// Each search backend's wire shapes: the request built for a query and the hits
// read from its answer (src/cursor/search/<backend>.ts).
import { describe, expect, it } from "vitest";
import { SEARCH_ADAPTERS } from "../../../src/cursor/search/search.ts";
import { type SearchConfig, SearchError, type SearchProviderKind } from "../../../src/cursor/search/search-types.ts";

const config = (provider: SearchProviderKind, extra: Partial<SearchConfig> = {}): SearchConfig => ({
  provider,
  baseUrl: `https://${provider}.example/api`,
  apiKey: `${provider}-key-123`,
  maxResults: 4,
  timeoutMs: 10_000,
  ...extra,
});

describe("Brave Search", () => {
  const brave = SEARCH_ADAPTERS.brave;

  it("asks GET /web/search with the query, the result count and the key in X-Subscription-Token", () => {
    expect(brave.request(config("brave"), "workers & durable objects")).toEqual({
      method: "GET",
      url: "https://brave.example/api/web/search?q=workers+%26+durable+objects&count=4",
      headers: { accept: "application/json", "x-subscription-token": "brave-key-123" },
    });
  });

  it("reads web.results, falling back to the extra snippets, and treats a missing web section as no results", () => {
    const answer = {
      type: "search",
      web: {
        results: [
          { title: "A", url: "https://a.example", description: "About <strong>A</strong>", extra_snippets: ["more"] },
          { title: "B", url: "https://b.example", extra_snippets: ["one", "two"] },
        ],
      },
    };
    expect(brave.hits(answer)).toEqual([
      { title: "A", url: "https://a.example", snippet: "About <strong>A</strong>" },
      { title: "B", url: "https://b.example", snippet: "one two" },
    ]);
    expect(brave.hits({ type: "search", query: { original: "q" } })).toEqual([]);
  });
});

describe("Tavily", () => {
  const tavily = SEARCH_ADAPTERS.tavily;

  it("asks POST /search with query and max_results and the key as a bearer token", () => {
    const request = tavily.request(config("tavily"), "edge runtimes");
    expect(request).toMatchObject({
      method: "POST",
      url: "https://tavily.example/api/search",
      headers: { "content-type": "application/json", authorization: "Bearer tavily-key-123" },
    });
    expect(JSON.parse(request.body!)).toEqual({ query: "edge runtimes", max_results: 4 });
  });

  it("reads results with their content as the snippet", () => {
    const answer = { query: "q", answer: null, results: [{ title: "T", url: "https://t.example", content: "text", score: 0.8 }] };
    expect(tavily.hits(answer)).toEqual([{ title: "T", url: "https://t.example", snippet: "text" }]);
  });
});

describe("Exa", () => {
  const exa = SEARCH_ADAPTERS.exa;

  it("asks POST /search with numResults and highlights, and the key in x-api-key", () => {
    const request = exa.request(config("exa"), "vector databases");
    expect(request).toMatchObject({ method: "POST", url: "https://exa.example/api/search", headers: { "x-api-key": "exa-key-123" } });
    expect(JSON.parse(request.body!)).toEqual({ query: "vector databases", numResults: 4, contents: { highlights: true } });
  });

  it("joins the highlights into the snippet, else uses the summary or the text, and accepts a null title", () => {
    const answer = {
      requestId: "r",
      results: [
        { id: "1", url: "https://1.example", title: "One", highlights: ["first part", "second part"] },
        { id: "2", url: "https://2.example", title: null, summary: "a summary" },
        { id: "3", url: "https://3.example", title: "Three", text: "page text" },
      ],
    };
    expect(exa.hits(answer)).toEqual([
      { title: "One", url: "https://1.example", snippet: "first part … second part" },
      { title: "", url: "https://2.example", snippet: "a summary" },
      { title: "Three", url: "https://3.example", snippet: "page text" },
    ]);
  });
});

describe("SearXNG", () => {
  const searxng = SEARCH_ADAPTERS.searxng;

  it("asks GET /search with format=json, sending an api_key only when one is configured", () => {
    expect(searxng.request(config("searxng", { apiKey: undefined }), "rust async")).toEqual({
      method: "GET",
      url: "https://searxng.example/api/search?q=rust+async&format=json",
      headers: { accept: "application/json" },
    });
    expect(searxng.request(config("searxng"), "q").headers.authorization).toBe("Bearer searxng-key-123");
  });

  it("reads results with their content as the snippet", () => {
    const answer = { query: "q", number_of_results: 0, results: [{ title: "S", url: "https://s.example", content: "c", engine: "ddg" }] };
    expect(searxng.hits(answer)).toEqual([{ title: "S", url: "https://s.example", snippet: "c" }]);
  });
});

describe("an answer of another shape", () => {
  it("is a SearchError naming the service, without the answer's text", () => {
    for (const [provider, adapter] of Object.entries(SEARCH_ADAPTERS)) {
      const read = () => adapter.hits({ web: "secret-looking text", results: "secret-looking text" });
      expect(read, provider).toThrow(SearchError);
      expect(read, provider).toThrow(`${adapter.label} answered in an unexpected shape`);
    }
  });
});
