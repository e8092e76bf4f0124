// Test-side handle on the fake search server (runs in the Workers runtime):
// register scripted answers, read the recorded requests, build backend answers.
import { env } from "cloudflare:workers";
import { type FakeSearchResponse, type RecordedSearchRequest, searchMarker } from "./fake-search-types.ts";

/** Server-side bound of the long-poll; tests fail instead of hanging. */
const WAIT_TIMEOUT_MS = 10_000;

export interface SearchScenario {
  /** Put this in the search term so the search is served by this scenario. */
  marker: string;
  /** The recorded requests, after waiting until at least `min` arrived. */
  requests(min?: number): Promise<RecordedSearchRequest[]>;
}

export function fakeSearchUrl(): string {
  const url = (env as unknown as { FAKE_SEARCH_URL?: string }).FAKE_SEARCH_URL;
  if (!url) throw new Error("FAKE_SEARCH_URL is not bound; is the fake search server started in global setup?");
  return url;
}

export async function createSearchScenario(responses: FakeSearchResponse[]): Promise<SearchScenario> {
  const id = crypto.randomUUID();
  const base = `${fakeSearchUrl()}/__scenarios/${id}`;
  await call("PUT", base, JSON.stringify({ responses }));
  return {
    marker: searchMarker(id),
    requests: async (min = 0) =>
      (await (await call("GET", `${base}/requests?min=${min}&timeout_ms=${WAIT_TIMEOUT_MS}`)).json()) as RecordedSearchRequest[],
  };
}

async function call(method: string, url: string, body?: string): Promise<Response> {
  const response = await fetch(url, { method, body, headers: body ? { "content-type": "application/json" } : {} });
  if (!response.ok) throw new Error(`fake search ${method} ${new URL(url).pathname} → ${response.status}: ${await response.text()}`);
  return response;
}

export interface Hit {
  title: string;
  url: string;
  snippet: string;
}

/** A 200 answer in each backend's own shape. */
export const answers = {
  brave: (hits: Hit[]): FakeSearchResponse => ({
    body: JSON.stringify({ type: "search", web: { results: hits.map((h) => ({ title: h.title, url: h.url, description: h.snippet })) } }),
  }),
  tavily: (hits: Hit[]): FakeSearchResponse => ({
    body: JSON.stringify({ query: "q", results: hits.map((h) => ({ title: h.title, url: h.url, content: h.snippet, score: 0.9 })) }),
  }),
  exa: (hits: Hit[]): FakeSearchResponse => ({
    body: JSON.stringify({
      requestId: "r",
      results: hits.map((h) => ({ id: h.url, title: h.title, url: h.url, highlights: [h.snippet] })),
    }),
  }),
  searxng: (hits: Hit[]): FakeSearchResponse => ({
    body: JSON.stringify({ query: "q", results: hits.map((h) => ({ title: h.title, url: h.url, content: h.snippet, engine: "e" })) }),
  }),
};
