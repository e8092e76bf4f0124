// The search boundary: a configured backend (BYOK_SEARCH), what each backend's
// adapter must provide, and the hits a search returns. No Cursor types here.

export type SearchProviderKind = "brave" | "tavily" | "exa" | "searxng";

/** The search backend, as the operator configured it. */
export interface SearchConfig {
  provider: SearchProviderKind;
  /** The API root, without a trailing slash (the provider's default when not configured). */
  baseUrl: string;
  apiKey?: string;
  /** How many results the model gets at most. */
  maxResults: number;
  /** The whole exchange (connect, answer, body) must finish within this. */
  timeoutMs: number;
  headers?: Record<string, string>;
}

/** One result as a backend gave it; search.ts cleans and bounds it. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

interface SearchRequest {
  method: "GET" | "POST";
  url: string;
  /** Authentication and protocol headers; the operator's headers are added after them. */
  headers: Record<string, string>;
  body?: string;
}

/** One backend's wire shapes: pure, so each is unit-tested without a network. */
export interface SearchAdapter {
  /** How messages name the service. */
  readonly label: string;
  /** The public API root; undefined for self-hosted services, whose base_url is required. */
  readonly defaultBaseUrl?: string;
  readonly needsKey: boolean;
  request(config: SearchConfig, query: string): SearchRequest;
  /** The hits of the parsed JSON answer; throws SearchError when it is not the expected shape. */
  hits(answer: unknown): SearchHit[];
}

/** A failed search. Its message is shown to the model and the user, so it never holds the key or the backend's text. */
export class SearchError extends Error {
  override readonly name = "SearchError";
}
