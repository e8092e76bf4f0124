// Shapes of GET /api/v1/runs and /api/v1/conversations (docs/hosting.md). Only
// status, timings and token counts: the API holds no prompt or response text.

export interface ProviderCall {
  id: string;
  provider: string;
  model: string;
  status: string;
  http_status: number | null;
  finish_reason: string | null;
  attempt: number;
  started_at: string | null;
  ttfb_ms: number | null;
  ttft_ms: number | null;
  duration_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
}

export interface Run {
  id: string;
  request_id: string | null;
  conversation_id: string;
  /** A user id, or "local". */
  user_id: string;
  email: string | null;
  team_id: string | null;
  model: string;
  status: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  provider_calls: ProviderCall[];
}

export interface Conversation {
  id: string;
  user_id: string;
  email: string | null;
  team_id: string | null;
  runs: number;
  last_model: string | null;
  last_status: string | null;
  started_at: string | null;
  last_finished_at: string | null;
  input_tokens: number;
  output_tokens: number;
}

/** Who a run or conversation belongs to, as a person reads it. */
export function whose(row: { user_id: string; email: string | null }): string {
  if (row.user_id === "local") return "local (single-user token)";
  return row.email ?? `${row.user_id} (removed)`;
}

/** Ids are UUIDs; the first block tells them apart on one screen. */
export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}
