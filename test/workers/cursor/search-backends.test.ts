// One web search over real fetch in the Workers runtime against the fake search
// server (src/cursor/search/search.ts): each backend's request on the wire, and the
// answers it refuses (too large, redirected, not JSON) or gives up on (aborted).
import { describe, expect, it } from "vitest";
import { searchWeb } from "../../../src/cursor/search/search.ts";
import { type SearchConfig, SearchError, type SearchProviderKind } from "../../../src/cursor/search/search-types.ts";
import { answers, createSearchScenario, fakeSearchUrl } from "../../support/fake-search.ts";
import type { FakeSearchResponse } from "../../support/fake-search-types.ts";

const KEY = "search-key-never-in-errors-77";
const HIT = { title: "Result &amp; more", url: "https://r.example/page", snippet: "the <b>snippet</b>" };

const configFor = (provider: SearchProviderKind): SearchConfig => ({
  provider,
  baseUrl: fakeSearchUrl(),
  apiKey: KEY,
  maxResults: 3,
  timeoutMs: 5000,
  headers: { "x-operator": "yes" },
});

async function searchWith(provider: SearchProviderKind, response: FakeSearchResponse, signal = new AbortController().signal) {
  const scenario = await createSearchScenario([response]);
  const outcome = searchWeb(configFor(provider), `q ${scenario.marker}`, signal);
  return { scenario, outcome };
}

const WIRE: Record<SearchProviderKind, { method: string; path: RegExp; keyHeader: [string, string] }> = {
  brave: { method: "GET", path: /^\/web\/search\?q=q\+fsearch%3A[\w-]+&count=3$/, keyHeader: ["x-subscription-token", KEY] },
  tavily: { method: "POST", path: /^\/search$/, keyHeader: ["authorization", `Bearer ${KEY}`] },
  exa: { method: "POST", path: /^\/search$/, keyHeader: ["x-api-key", KEY] },
  searxng: { method: "GET", path: /^\/search\?q=q\+fsearch%3A[\w-]+&format=json$/, keyHeader: ["authorization", `Bearer ${KEY}`] },
};

describe("searchWeb", () => {
  it("sends each backend's request with the operator's headers and returns its cleaned hits", async () => {
    for (const provider of Object.keys(WIRE) as SearchProviderKind[]) {
      const { scenario, outcome } = await searchWith(provider, answers[provider]([HIT]));
      expect(await outcome, provider).toEqual([{ title: "Result & more", url: HIT.url, snippet: "the snippet" }]);
      const [request] = await scenario.requests(1);
      const wire = WIRE[provider];
      expect(request!.method, provider).toBe(wire.method);
      expect(request!.path, provider).toMatch(wire.path);
      expect(request!.headers[wire.keyHeader[0]], provider).toBe(wire.keyHeader[1]);
      expect(request!.headers["x-operator"], provider).toBe("yes");
    }
  });

  it("refuses an answer over 1 MiB, whether or not it announces its length", async () => {
    const big = JSON.stringify({ results: [{ title: "x".repeat(1_100_000), url: HIT.url }] });
    const announced: Record<string, string>[] = [{}, { "transfer-encoding": "chunked" }];
    for (const headers of announced) {
      const { outcome } = await searchWith("tavily", { body: big, headers });
      await expect(outcome).rejects.toThrow(new SearchError("Tavily sent an answer larger than 1024 KiB"));
    }
  });

  it("does not follow a redirect, which could carry the key elsewhere", async () => {
    const { outcome } = await searchWith("brave", { status: 302, headers: { location: "https://elsewhere.example/" } });
    await expect(outcome).rejects.toThrow(/Brave Search answered with a redirect \(HTTP 302\); configure the final base_url/);
  });

  it("reports an answer that is not JSON and names SearXNG's missing json format on HTTP 403, never echoing the key", async () => {
    const notJson = await searchWith("exa", { body: `<html>${KEY}</html>` });
    await expect(notJson.outcome).rejects.toThrow("Exa answered with something other than JSON");
    const forbidden = await searchWith("searxng", { status: 403, body: KEY });
    const error = await forbidden.outcome.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(SearchError);
    expect(error?.message).toMatch(/enable the json format/);
    expect(error?.message).not.toContain(KEY);
  });

  it("stops waiting when the run is cancelled and rethrows the run's own abort", async () => {
    const run = new AbortController();
    const { scenario, outcome } = await searchWith("tavily", { hang: true }, run.signal);
    await scenario.requests(1);
    const reason = new DOMException("run was cancelled", "AbortError");
    run.abort(reason);
    await expect(outcome).rejects.toBe(reason);
  });
});
