// The fake search server's wire contract, shared by the Node server and the
// test client that runs in the Workers runtime.

export interface FakeSearchResponse {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** The whole body (JSON text for an answer). */
  body?: string;
  /** Never answer; the request ends only when the caller gives up. */
  hang?: true;
}

export interface RecordedSearchRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: string;
}

/** Put this in the search term so the request is served by that scenario. */
export const searchMarker = (id: string) => `fsearch:${id}`;
export const SEARCH_MARKER_PATTERN = /fsearch:([A-Za-z0-9_-]+)/;
