// Opening a hosted model's stored key for one provider call (docs/hosting.md#models-per-user):
// the team's data key is unwrapped with the KEK and kept per isolate as a non-extractable
// CryptoKey; the provider key itself lives only in the request being made.
import { decryptCredentialKey, NO_KEY } from "./credential-key.ts";
import { type DataKey, unwrapDataKey } from "./data-key.ts";
import type { KekEnv } from "./kek.ts";
import type { ModelConfig, Provider } from "../../provider/types.ts";

/** Data keys by their wrapped text; a team has one, so a few hundred cover a deployment. */
const DATA_KEYS_MAX = 512;
const dataKeys = new Map<string, Promise<DataKey>>();

/** The model ready for its provider call: its key opened when it is a stored one, unchanged otherwise. */
export async function withOpenedKey(env: KekEnv, model: ModelConfig): Promise<ModelConfig> {
  const stored = model.storedKey;
  if (!stored) return model;
  if (stored.encryptedKey === NO_KEY) return { ...model, apiKey: "" };
  const dataKey = await dataKeyOf(env, stored.wrappedDataKey);
  const apiKey = await decryptCredentialKey(dataKey, { teamId: stored.teamId, credentialId: stored.credentialId }, stored.encryptedKey);
  return { ...model, apiKey };
}

function dataKeyOf(env: KekEnv, wrapped: string): Promise<DataKey> {
  let entry = dataKeys.get(wrapped);
  if (!entry) {
    entry = unwrapDataKey(env, wrapped);
    if (dataKeys.size >= DATA_KEYS_MAX) dataKeys.clear();
    dataKeys.set(wrapped, entry);
    entry.catch(() => dataKeys.delete(wrapped));
  }
  return entry;
}

/** A provider that opens a stored key just before each call; the opened key goes no further than that call. */
export function keyOpeningProvider(env: KekEnv, inner: Provider): Provider {
  return {
    async *stream(request, timings) {
      yield* inner.stream({ ...request, model: await withOpenedKey(env, request.model) }, timings);
    },
  };
}
