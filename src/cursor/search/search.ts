// Running one web search on the configured backend: its adapter builds the
// request, the answer is read with a deadline and a size bound, and every
// failure becomes a SearchError whose text holds neither the key nor the answer.
import { braveSearch } from "./brave.ts";
import { exaSearch } from "./exa.ts";
import { cleanHits } from "./hits.ts";
import { searxngSearch } from "./searxng.ts";
import { tavilySearch } from "./tavily.ts";
import { type SearchAdapter, type SearchConfig, SearchError, type SearchHit, type SearchProviderKind } from "./search-types.ts";

/** Search answers are a few kB; anything far bigger is not one. */
const ANSWER_MAX_BYTES = 1024 * 1024;

export const SEARCH_ADAPTERS: Readonly<Record<SearchProviderKind, SearchAdapter>> = {
  brave: braveSearch,
  tavily: tavilySearch,
  exa: exaSearch,
  searxng: searxngSearch,
};

/** The cleaned hits for `query`; `signal` is the run's (its abort is rethrown as is). */
export async function searchWeb(config: SearchConfig, query: string, signal: AbortSignal): Promise<SearchHit[]> {
  const adapter = SEARCH_ADAPTERS[config.provider];
  const request = adapter.request(config, query);
  const deadline = AbortSignal.timeout(config.timeoutMs);
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: { ...request.headers, ...config.headers },
      ...(request.body !== undefined && { body: request.body }),
      signal: AbortSignal.any([signal, deadline]),
      // A redirect could lead past the upstream address check, with the key.
      redirect: "manual",
    });
    if (!response.ok) {
      void response.body?.cancel().catch(() => undefined);
      throw new SearchError(statusMessage(adapter, config.provider, response.status));
    }
    return cleanHits(adapter.hits(parseJson(adapter, await readBounded(adapter, response))), config.maxResults);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (error instanceof SearchError) throw error;
    if (deadline.aborted) throw new SearchError(`${adapter.label} did not answer within ${seconds(config.timeoutMs)}`);
    // Transport errors can carry the URL (SearXNG's has the query); their text is not passed on.
    throw new SearchError(`could not reach ${adapter.label}`);
  }
}

function statusMessage(adapter: SearchAdapter, provider: SearchProviderKind, status: number): string {
  if (status >= 300 && status < 400) return `${adapter.label} answered with a redirect (HTTP ${status}); configure the final base_url`;
  if (provider === "searxng" && status === 403) {
    return `SearXNG refused the request (HTTP 403); enable the json format in its settings (search.formats)`;
  }
  if (status === 401 || status === 403) return `${adapter.label} refused the configured key (HTTP ${status})`;
  if (status === 429) return `${adapter.label} is rate limiting searches (HTTP 429); try again later`;
  return `${adapter.label} answered HTTP ${status}`;
}

async function readBounded(adapter: SearchAdapter, response: Response): Promise<string> {
  const tooBig = () => new SearchError(`${adapter.label} sent an answer larger than ${ANSWER_MAX_BYTES / 1024} KiB`);
  if (Number(response.headers.get("content-length") ?? 0) > ANSWER_MAX_BYTES) {
    void response.body?.cancel().catch(() => undefined);
    throw tooBig();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > ANSWER_MAX_BYTES) throw tooBig();
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
}

function parseJson(adapter: SearchAdapter, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new SearchError(`${adapter.label} answered with something other than JSON`);
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
