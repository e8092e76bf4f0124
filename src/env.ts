// Bindings and vars beyond what `wrangler types` sees in wrangler.toml: secrets
// and .dev.vars entries. Env itself is generated (worker-configuration.d.ts).
export interface Secrets {
  /** Bearer token a client must present in local single-user mode. */
  BYOK_TOKEN?: string;
  /** JSON array of model configurations (see README). */
  BYOK_MODELS?: string;
}

export type AppEnv = Env & Secrets;
