// Bindings and vars beyond what `wrangler types` sees in wrangler.toml: secrets
// and .dev.vars entries. Env itself is generated (worker-configuration.d.ts).
interface Secrets {
  /** The operator's bearer token (docs/hosting.md#secrets); absent, the operator API answers unimplemented. */
  ADMIN_TOKEN?: string;
  /** 32 random bytes, base64: wraps each team's data key (src/hosting/keys). */
  KEY_ENCRYPTION_KEY?: string;
  /** The key-encryption key before a rotation, until every data key is re-wrapped. */
  KEY_ENCRYPTION_KEY_PREVIOUS?: string;
  /** Bearer token of the built-in single-user principal "local". */
  BYOK_TOKEN?: string;
  /** JSON array of model configurations (see README). */
  BYOK_MODELS?: string;
  /** JSON object naming the optional web search backend (see README); absent, WebSearch is not offered. */
  BYOK_SEARCH?: string;
  /** Days the audit log keeps an entry (default 400; docs/hosting.md#audit-log). */
  BYOK_AUDIT_RETENTION_DAYS?: string;
  /** How long a running turn survives with no RunSSE subscriber (default 10 s). */
  BYOK_DISCONNECT_GRACE_MS?: string;
  /** How long a completed turn's stream waits for a runtime user message to continue it (default 2 s; "0": off). */
  BYOK_CONTINUATION_WINDOW_MS?: string;
  /** How long an ended request keeps its frames for a reconnecting RunSSE, and a request waits for its run_request (default 10 min). */
  BYOK_REQUEST_TTL_MS?: string;
  /** How long a run waits for each answer of the client about its request context (default 30 s). */
  BYOK_CONTEXT_TIMEOUT_MS?: string;
  /** How long a compaction's summary call may take before the oldest messages are dropped instead (default 120 s). */
  BYOK_COMPACTION_TIMEOUT_MS?: string;
  /** Cloudflare Access in front of the deployment: the team's domain (acme.cloudflareaccess.com) and the application's audience tag(s) (docs/hosting.md#cloudflare-access). */
  ACCESS_TEAM_DOMAIN?: string;
  ACCESS_AUD?: string;
  /** Where Access's signing keys are, when not at https://<ACCESS_TEAM_DOMAIN>/cdn-cgi/access/certs (tests, self-hosted setups). */
  ACCESS_CERTS_URL?: string;
  /** OIDC sign-in (docs/hosting.md#oidc): the issuer URL, the client registered there and, optionally, the button's name. */
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_PROVIDER_NAME?: string;
  /** The deployment's OTLP collector (docs/telemetry.md): its base URL (traces go to <endpoint>/v1/traces), and its headers as `key=value,…`. */
  OTLP_ENDPOINT?: string;
  OTLP_HEADERS?: string;
  /** A bearer token that may read GET /metrics besides the operator's (docs/telemetry.md#metrics). */
  METRICS_TOKEN?: string;
  /** A cell host's `/cell` URL: cells run there, where a runaway one can be stopped (docs/code-mode.md#cell-host). */
  CODE_MODE_CELL_HOST?: string;
}

export type AppEnv = Env & Secrets;
