// The admin API's shapes as the dashboard reads them (docs/hosting.md#admin-api);
// the API's OpenAPI document (/api/openapi.json) is the authority. No imports: the
// pure modules built on these shapes (usage/rows.ts) are unit-tested in Node.

/** The client of the admin API (api.ts makes one per token and re-exports this). */
export interface Api {
  /** `path` is relative to /api/v1, e.g. "/usage"; undefined query values are left out. */
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  del(path: string): Promise<void>;
}

export interface Me {
  user: { id: string; email: string; role: "admin" | "member"; team_id: string } | null;
  team: { id: string; name: string } | null;
  operator: boolean;
  principal: "operator" | "user" | "local";
  token: { id: string; name: string; expires_at: string | null } | null;
}

/** What every page gets from the shell. */
export interface PageProps {
  api: Api;
  me: Me;
}

export type Scope = "user" | "team";
export type ProviderKind = "openai-chat" | "openai-responses" | "anthropic";

export interface Credential {
  id: string;
  name: string;
  provider: ProviderKind;
  base_url: string;
  scope: Scope;
  headers: Record<string, string> | null;
  key_last_four: string;
  team_id: string;
  owner_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface Model {
  id: string;
  name: string;
  scope: Scope;
  credential_id: string;
  model: string;
  context_window: number;
  max_output_tokens: number | null;
  reasoning_effort: string | null;
  headers: Record<string, string> | null;
  extra_body: Record<string, unknown> | null;
  fast_service_tier: string | null;
  stall_timeout_ms: number | null;
  vision: boolean;
  code_mode: boolean;
  enabled: boolean;
  price_input_per_mtok: number | null;
  price_output_per_mtok: number | null;
  price_cache_read_per_mtok: number | null;
  price_cache_write_per_mtok: number | null;
  team_id: string;
  owner_user_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ModelTest {
  ok: boolean;
  ttft_ms: number | null;
  tokens_per_second: number | null;
  duration_ms: number;
  output_tokens: number | null;
  error?: { kind: string; status?: number; message: string };
}

export interface Token {
  id: string;
  name: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface IssuedToken {
  id: string;
  name: string;
  token: string;
  created_at: string;
  expires_at: string | null;
}

export interface Team {
  id: string;
  name: string;
  monthly_token_budget: number | null;
  created_at: string;
}

export interface User {
  id: string;
  email: string;
  role: "admin" | "member";
  team_id: string;
  requests_per_minute: number | null;
  max_concurrent_runs: number | null;
  created_at: string;
}

/** GET /teams/{id}/budget: the figures the budget refusals use. */
export interface Budget {
  team_id: string;
  month: string;
  monthly_token_budget: number | null;
  used_tokens: number;
  reserved_tokens: number;
  remaining_tokens: number | null;
}

// GET /usage (docs/hosting.md#usage-api).
export interface UsageFigures {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
}

export interface UsageRow extends UsageFigures {
  day?: string;
  model?: string;
  user_id?: string;
  /** With group_by=user: null for `local` and removed users. */
  email?: string | null;
}

export interface UsageAnswer {
  from: string;
  to: string;
  group_by: "day" | "user" | "model";
  rows: UsageRow[];
}

// GET /runs and /conversations: status, timings and token counts only; the API holds no prompt or response text.
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
