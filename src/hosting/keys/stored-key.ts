// Opening a hosted model's stored key and header values for one provider call
// (docs/hosting.md#models-per-user): the team's data key is unwrapped with the KEK and kept
// per isolate as a non-extractable CryptoKey; the provider key and the header values live
// only in the request being made.
import { decryptCredentialKey, NO_KEY } from "./credential-key.ts";
import { type DataKey, unwrapDataKey } from "./data-key.ts";
import type { KekEnv } from "./kek.ts";
import { openHeaders } from "./sealed-headers.ts";
import { parseEnvelope, sameKeyId } from "./sealed-envelope.ts";
import { type PersonalKey, SEALED_MESSAGE } from "./personal-key.ts";
import { AppError } from "../../core/errors.ts";
import type { ModelCatalog } from "../config/byok-models.ts";
import type { ModelConfig, Provider } from "../../provider/types.ts";

/** Data keys by team and wrapped text; a team has one (two during a rotation), so a few hundred cover a deployment. */
const DATA_KEYS_MAX = 512;
const dataKeys = new Map<string, Promise<DataKey>>();

type StoredKey = NonNullable<ModelConfig["storedKey"]>;

/** The model ready for its provider call: its key and headers opened when they are stored ones, unchanged otherwise. */
export async function withOpenedKey(env: KekEnv, model: ModelConfig): Promise<ModelConfig> {
  const stored = model.storedKey;
  if (!stored) return model;
  const personal = personalKeyFor(stored);
  const credentialKey = (sealed: string) => personal ?? dataKeyFor(env, stored, sealed);
  const apiKey =
    stored.encryptedKey === NO_KEY
      ? ""
      : await decryptCredentialKey(
          await credentialKey(stored.encryptedKey),
          { teamId: stored.teamId, credentialId: stored.credentialId },
          stored.encryptedKey,
        );
  if (!stored.headers) return { ...model, apiKey };
  const { modelId, credential, model: own } = stored.headers;
  const headers = {
    ...(await openPart(credentialKey, { teamId: stored.teamId, kind: "credential", id: stored.credentialId }, credential)),
    ...(await openPart((sealed) => dataKeyFor(env, stored, sealed), { teamId: stored.teamId, kind: "model", id: modelId }, own)),
  };
  return { ...model, apiKey, ...(Object.keys(headers).length > 0 && { headers }) };
}

async function openPart(
  keyFor: (sealed: string) => DataKey | Promise<DataKey>,
  owner: Parameters<typeof openHeaders>[1],
  part: NonNullable<StoredKey["headers"]>["credential"],
): Promise<Record<string, string>> {
  if (part === null) return {};
  if (typeof part !== "string") return part;
  return openHeaders(await keyFor(part), owner, part);
}

/** A personal credential's key: the one its request opened, or the refusal its owner's other tokens and everyone else get. */
function personalKeyFor(stored: StoredKey): DataKey | undefined {
  if (stored.personalKeyId === undefined) return undefined;
  if (stored.personalKey?.idText !== stored.personalKeyId) throw new AppError("failed_precondition", SEALED_MESSAGE);
  return stored.personalKey;
}

/** The catalogue as one request may use it: its personal credentials' models carry the key the request's own secret opened. */
export function withPersonalKey(catalog: ModelCatalog, key: PersonalKey | undefined): ModelCatalog {
  // Nothing to open or to drop: the catalogue as it is, as on every call of a model with neither.
  const touched = (m: ModelConfig) =>
    (key !== undefined && m.storedKey?.personalKeyId === key.idText) ||
    !!m.fallbacks?.length ||
    !!m.compactionModel ||
    !!m.imageModel ||
    !!m.keys;
  if (!catalog.models.some(touched)) return catalog;
  return { ...catalog, models: catalog.models.map((m) => modelWithPersonalKey(m, key)) };
}

/**
 * One model as one request may use it (see withPersonalKey). Its fallbacks, summary and image models too,
 * less those sealed to a personal key this request does not open: moving on to one would fail for
 * that, not for the provider (docs/providers.md#fallbacks).
 */
export function modelWithPersonalKey(model: ModelConfig, key: PersonalKey | undefined): ModelConfig {
  const opens = (m: ModelConfig) => m.storedKey?.personalKeyId === undefined || m.storedKey.personalKeyId === key?.idText;
  const { fallbacks: allFallbacks, compactionModel: writer, imageModel: describer, ...alone } = model;
  const stored = alone.storedKey;
  const own = key && stored?.personalKeyId === key.idText ? { ...alone, storedKey: { ...stored, personalKey: key } } : alone;
  const fallbacks = (allFallbacks ?? []).filter(opens).map((f) => modelWithPersonalKey(f, key));
  // Its keys the same way: one sealed to a key this request does not open is left out of the pool.
  const keys = own.keys?.keys.flatMap((k) => {
    if (!k.storedKey || k.storedKey.personalKeyId === undefined) return [k];
    return k.storedKey.personalKeyId === key?.idText ? [{ ...k, storedKey: { ...k.storedKey, personalKey: key } }] : [];
  });
  const { keys: _allKeys, ...single } = own;
  return {
    ...(keys?.length ? { ...own, keys: { pool: own.keys!.pool, keys } } : single),
    ...(fallbacks.length > 0 && { fallbacks }),
    ...(writer && opens(writer) && { compactionModel: modelWithPersonalKey(writer, key) }),
    ...(describer && opens(describer) && { imageModel: modelWithPersonalKey(describer, key) }),
  };
}

/** The data key that sealed `sealed`: the team's current one, or during a rotation the one it replaces. */
async function dataKeyFor(env: KekEnv, stored: StoredKey, sealed: string): Promise<DataKey> {
  const current = await dataKeyOf(env, stored.teamId, stored.wrappedDataKey);
  if (!stored.previousWrappedDataKey) return current;
  const envelope = parseEnvelope(sealed);
  if (typeof envelope !== "object" || sameKeyId(envelope.keyId, current.id)) return current;
  return dataKeyOf(env, stored.teamId, stored.previousWrappedDataKey);
}

function dataKeyOf(env: KekEnv, teamId: string, wrapped: string): Promise<DataKey> {
  const cacheKey = `${teamId}\u0000${wrapped}`;
  let entry = dataKeys.get(cacheKey);
  if (!entry) {
    entry = unwrapDataKey(env, teamId, wrapped);
    if (dataKeys.size >= DATA_KEYS_MAX) dataKeys.clear();
    dataKeys.set(cacheKey, entry);
    entry.catch(() => dataKeys.delete(cacheKey));
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
