// Bindings and vars beyond what `wrangler types` sees in wrangler.toml: secrets
// and .dev.vars entries. Env itself is generated (worker-configuration.d.ts).
interface Secrets {
  /** Bearer token a client must present in local single-user mode. */
  BYOK_TOKEN?: string;
  /** JSON array of model configurations (see README). */
  BYOK_MODELS?: string;
  /** JSON object naming the optional web search backend (see README); absent, WebSearch is not offered. */
  BYOK_SEARCH?: string;
  /** How long a running turn survives with no RunSSE subscriber (default 10 s). */
  BYOK_DISCONNECT_GRACE_MS?: string;
  /** How long a completed turn's stream waits for a runtime user message to continue it (default 2 s; "0": off). */
  BYOK_CONTINUATION_WINDOW_MS?: string;
  /** How long a run waits for each answer of the client about its request context (default 30 s). */
  BYOK_CONTEXT_TIMEOUT_MS?: string;
}

export type AppEnv = Env & Secrets;
