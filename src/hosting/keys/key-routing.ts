// A run's way to its team's key pool object (docs/providers.md#keys-behind-one-model): a pick
// before each call of a model with several keys, a report after a 429 or a refused key. A
// model with one key never reaches the object on a call that works, so it pays nothing.
import { keyPoolName } from "../../core/object-names.ts";
import { errorKind } from "../../core/log-safe.ts";
import type { KeyOutcome, KeyPick, KeyRouting } from "../../provider/model-keys.ts";
import type { ModelConfig, ModelKey } from "../../provider/types.ts";
import type { ReportedKey } from "./key-pool-host.ts";
import { storedKeyVersion } from "./key-pool.ts";

type KeysEnv = Pick<Env, "KEY_POOL">;

/** `teamId`: the team whose pools the calls use, read at each call (a conversation learns it with its first append). */
export function keyRoutingFor(env: KeysEnv, teamId: () => string, waitUntil: (promise: Promise<unknown>) => void): KeyRouting {
  const pool = () => env.KEY_POOL.getByName(keyPoolName(teamId()));
  return {
    async pick(model) {
      const keys = model.keys.keys.map(({ id, weight, version }) => ({ id, weight, version }));
      try {
        return await pool().pick(model.keys.pool, keys);
      } catch (err) {
        // The object out of reach must not stop the call: a key by weight alone, without the shared state.
        console.error("byok-edge: the key pool could not be reached; picking by weight here:", errorKind(err));
        return weightedPick(model.keys.keys);
      }
    },
    report(model, outcome) {
      const key = reportedKey(model, outcome);
      if (!key) return Promise.resolve();
      // Never throws, even when the binding does: a report must not replace the provider's error.
      const reported = Promise.resolve()
        .then(() => pool().report(teamId(), model.keys?.pool ?? "", key, outcome))
        .catch((err: unknown) => console.error("byok-edge: a key's 429 or refusal could not reach the key pool:", errorKind(err)));
      waitUntil(reported);
      return reported;
    },
  };
}

/**
 * The key a report is about: one of the model's keys, or for a model with one stored key, that
 * credential when it was refused (so the dashboard marks it; its calls go on as before).
 */
function reportedKey(model: ModelConfig, outcome: KeyOutcome): ReportedKey | undefined {
  const stored = model.storedKey;
  const key = model.keys?.keys.find((k) => k.id === model.keyId);
  if (key) return { id: key.id, weight: key.weight, version: key.version, stored: key.storedKey !== undefined };
  if (outcome.kind === "refused" && stored) {
    return { id: stored.credentialId, weight: 1, version: storedKeyVersion(stored.credentialUpdatedAtMs), stored: true };
  }
  return undefined;
}

function weightedPick(keys: readonly ModelKey[]): KeyPick {
  const total = keys.reduce((sum, k) => sum + k.weight, 0);
  let at = Math.random() * total;
  for (const key of keys) {
    at -= key.weight;
    if (at < 0) return { kind: "key", id: key.id };
  }
  return { kind: "key", id: keys[keys.length - 1]!.id };
}
