// Several keys behind one model (docs/providers.md#keys-behind-one-model): what a call needs
// to pick one and to report what the provider said of it. The pool's shared state (spread,
// cool-downs, broken marks) is the hosting product's; this is only the shape both sides use.
import { ProviderError } from "./failure.ts";
import type { ModelConfig, ModelKey } from "./types.ts";

/** Which key a call of a model with several gets, or why none may be used now. */
export type KeyPick =
  /** `probation`: a key marked broken long enough ago to be tried once more; its call reports how it went. */
  { kind: "key"; id: string; probation?: true } | { kind: "cooling"; retryAfterMs: number } | { kind: "broken" };

/** What the provider said of a key: a 429 cools it, a refusal breaks it, an answer on probation mends it. */
export type KeyOutcome = { kind: "rate_limited"; retryAfterMs?: number } | { kind: "refused"; status?: number } | { kind: "answered" };

/** The deployment's shared key state, as a run reaches it. */
export interface KeyRouting {
  /** The key the next call of a model with `keys` uses. */
  pick(model: ModelConfig & { keys: NonNullable<ModelConfig["keys"]> }): Promise<KeyPick>;
  /**
   * A key answered 429 or its provider refused it. Settles once the pool holds it (a call moving
   * to another key waits for that, so its pick skips this one), and never rejects.
   */
  report(model: ModelConfig, outcome: KeyOutcome): Promise<void>;
}

/** The model as one call with `key` makes it: that key's URL, secret and headers. */
export function withKey(model: ModelConfig, key: ModelKey, probation = false): ModelConfig {
  const { storedKey: _own, headers: _ownHeaders, ...rest } = model;
  return {
    ...rest,
    baseUrl: key.baseUrl,
    apiKey: key.apiKey,
    ...(key.headers && { headers: key.headers }),
    ...(key.storedKey && { storedKey: key.storedKey }),
    keyId: key.id,
    ...(probation && { keyOnProbation: true }),
  };
}

/** The key a call used, for its provider call row: a stored credential's id or a BYOK key's label; none for a model's one BYOK key. */
export function keyIdOf(model: ModelConfig): string | null {
  return model.keyId ?? model.storedKey?.credentialId ?? null;
}

/** What a failure says of the key that met it, if anything: a 429 cools it, a refused key (401, 403) breaks it. */
export function keyOutcomeOf(err: unknown): KeyOutcome | undefined {
  if (!(err instanceof ProviderError)) return undefined;
  if (err.kind === "rate_limit") return { kind: "rate_limited", ...(err.retryAfterMs !== undefined && { retryAfterMs: err.retryAfterMs }) };
  if (err.kind === "authorization") return { kind: "refused", ...(err.status !== undefined && { status: err.status }) };
  return undefined;
}
