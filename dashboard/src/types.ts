// The admin API's shapes as the dashboard reads them (docs/hosting.md#admin-api);
// the API's OpenAPI document (/api/openapi.json) is the authority.
import type { Api } from "./api.ts";

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
