// A scripted stand-in for web search backends (Brave, Tavily, Exa, SearXNG), run
// in Node by vitest global setup. Any path serves: the scenario is the marker in
// the query (URL or body); tests read the recorded requests back.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type FakeSearchResponse, type RecordedSearchRequest, SEARCH_MARKER_PATTERN } from "./fake-search-types.ts";
import { lowerCaseHeaders, readBody, sendJson } from "./node-http.ts";

/** Long-polls end after this, so a broken test fails instead of hanging. */
const WAIT_MAX_MS = 10_000;

class SearchScenario {
  readonly requests: RecordedSearchRequest[] = [];
  readonly #waiters = new Set<() => void>();
  #next = 0;

  constructor(readonly responses: FakeSearchResponse[]) {}

  nextResponse(): FakeSearchResponse | undefined {
    return this.responses[this.#next++];
  }

  record(request: RecordedSearchRequest): void {
    this.requests.push(request);
    for (const wake of this.#waiters) wake();
  }

  waitFor(min: number, timeoutMs: number): Promise<boolean> {
    if (this.requests.length >= min) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const finish = (enough: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve(enough);
      };
      const wake = () => {
        if (this.requests.length >= min) finish(true);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.#waiters.add(wake);
    });
  }
}

export async function startFakeSearchServer(): Promise<{ port: number; close(): Promise<void> }> {
  const scenarios = new Map<string, SearchScenario>();
  const server = createServer((req, res) => {
    handle(req, res, scenarios).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: `fake search: ${String(error)}` });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections(); // hanging responses would keep close() waiting
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, scenarios: Map<string, SearchScenario>): Promise<void> {
  const url = new URL(req.url ?? "/", "http://fake-search");
  const body = await readBody(req);
  const [root, id, action] = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (root === "__scenarios" && id) {
    if (req.method === "PUT" && action === undefined) {
      scenarios.set(id, new SearchScenario((JSON.parse(body) as { responses: FakeSearchResponse[] }).responses));
      return sendJson(res, 200, { id });
    }
    const scenario = scenarios.get(id);
    if (req.method === "GET" && action === "requests" && scenario) {
      const min = Number(url.searchParams.get("min") ?? 0);
      const enough = await scenario.waitFor(min, Math.min(WAIT_MAX_MS, Number(url.searchParams.get("timeout_ms")) || WAIT_MAX_MS));
      return sendJson(res, enough ? 200 : 408, scenario.requests);
    }
    return sendJson(res, 404, { error: `fake search: no control route ${req.method} ${url.pathname}` });
  }
  const marker = SEARCH_MARKER_PATTERN.exec(`${[...url.searchParams.values()].join(" ")} ${body}`);
  const scenario = marker ? scenarios.get(marker[1]!) : undefined;
  if (!scenario) return sendJson(res, 404, { error: "fake search: no scenario marker in the query" });
  scenario.record({ method: req.method ?? "GET", path: url.pathname + url.search, headers: lowerCaseHeaders(req), body });
  const response = scenario.nextResponse();
  if (!response) return sendJson(res, 500, { error: "fake search: the scenario has no more responses" });
  if (response.hang) return; // the caller's timeout ends it; close() cuts what is left
  res.writeHead(response.status ?? 200, { "content-type": "application/json", ...response.headers });
  res.end(response.body ?? "");
}
