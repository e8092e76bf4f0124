// The models one principal may use: what Cursor's model list shows it and the
// only ones its runs may name (docs/hosting.md#models-per-user). A hosted user has
// their own and their team's enabled stored models on live credentials; "local"
// has BYOK_MODELS and then the ones it stored in the dashboard. Stored ones are
// read from D1 and kept per isolate for less than 5 s (like token checks), so the
// hot path pays no D1 round trip. Keys stay encrypted in the catalogue
// (ModelConfig.storedKey) until the provider call.
import { LOCAL_PRINCIPAL_ID, LOCAL_TEAM_ID } from "../store/local-account.ts";
import { d1 } from "../store/db.ts";
import { modelKeysOf, type UsableModelRow, usableModelsOf } from "../store/model-rows.ts";
import type { ModelConfig, ModelKey, ModelKeys } from "../../provider/types.ts";
import { type CredentialRow, credentialsVisibleTo } from "../store/credential-rows.ts";
import { storedKeyVersion } from "../keys/key-pool.ts";
import type { ModelPrices } from "./model-prices.ts";
import { DEFAULT_CONTEXT_WINDOW, type ModelCatalog, modelCatalogFromEnv } from "./byok-models.ts";
import { checkUpstreamUrl } from "../../provider/upstream-url.ts";
import { errorKind } from "../../core/log-safe.ts";
import { NO_KEY } from "../keys/credential-key.ts";
import { lostMessage } from "../keys/personal-key.ts";

const NO_MODELS: ModelCatalog = { models: [], problems: new Map() };

/** The contract's bound for cached access decisions (docs/hosting.md#caching). */
const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface CatalogEnv {
  BYOK_MODELS?: string;
  BYOK_ALLOW_PRIVATE_UPSTREAMS?: string;
  DB: D1Database;
}

interface Entry {
  catalog: Promise<ModelCatalog>;
  validUntilMs: number;
}

const entries = new Map<string, Entry>();
let now: () => number = Date.now;

/** The principal's catalogue, loaded at most once per 5 s per isolate. */
export function modelCatalogFor(env: CatalogEnv, principal: { id: string; teamId?: string | null }): Promise<ModelCatalog> {
  // A hosted user always has a team; "local" has none (and no user token carries its id).
  const local = principal.id === LOCAL_PRINCIPAL_ID && !principal.teamId;
  const teamId = local ? LOCAL_TEAM_ID : principal.teamId;
  if (!teamId) return Promise.resolve(NO_MODELS);
  const key = `${teamId}\u0000${principal.id}`;
  const cached = entries.get(key);
  if (cached && now() < cached.validUntilMs) return cached.catalog;
  // Timed from the load's start: a row may change right after it was read.
  const startedMs = now();
  const db = d1(env.DB);
  const stored = usableModelsOf(db, principal.id, teamId).then(async (rows) => {
    // The credentials behind models with several keys: read only when some model has them.
    const credentials = rows.some((r) => r.model.keysJson) ? await credentialsVisibleTo(db, { userId: principal.id, teamId }) : [];
    return hostedCatalog(rows, credentials, env.BYOK_ALLOW_PRIVATE_UPSTREAMS === "true");
  });
  const catalog = local ? localCatalog(env, stored) : stored;
  entries.delete(key);
  entries.set(key, { catalog, validUntilMs: startedMs + TTL_MS });
  catalog.catch(() => {
    if (entries.get(key)?.catalog === catalog) entries.delete(key);
  });
  while (entries.size > MAX_ENTRIES) {
    const oldest = entries.keys().next();
    if (oldest.done) break;
    entries.delete(oldest.value);
  }
  return catalog;
}

/** A credential or model changed here: this isolate reloads at once, others within 5 s. */
export function forgetModelCatalogs(): void {
  entries.clear();
}

/** @internal Tests move the catalogue cache's clock instead of sleeping. */
export function setModelCatalogClock(clock: () => number): void {
  now = clock;
}

/**
 * BYOK_MODELS first, then the single user's stored models under other names. D1 failing
 * (say, its migrations not applied) leaves BYOK_MODELS working, and says so once per load.
 */
async function localCatalog(env: CatalogEnv, stored: Promise<ModelCatalog>): Promise<ModelCatalog> {
  const configured = modelCatalogFromEnv(env);
  let fromD1: ModelCatalog;
  try {
    fromD1 = await stored;
  } catch (err) {
    console.error("byok-edge: the single user's stored models could not be read; BYOK_MODELS only:", errorKind(err));
    return configured;
  }
  if (fromD1.models.length === 0 && fromD1.problems.size === 0) return configured;
  const prices = new Map(fromD1.prices);
  const merged: ModelCatalog = {
    models: [...configured.models],
    problems: new Map([...configured.problems, ...fromD1.problems]),
    prices,
  };
  for (const model of fromD1.models) {
    if (merged.models.some((m) => m.name === model.name)) {
      // BYOK_MODELS entries have no prices: the hidden stored model's must not price their runs.
      prices.delete(model.name);
      merged.problems.set(model.name, `model ${model.name} is stored and also set in BYOK_MODELS; the BYOK_MODELS entry wins`);
    } else {
      // A stored model hidden by a BYOK_MODELS entry of its name is not reached as a fallback either.
      const fallbacks = model.fallbacks?.filter((f) => !configured.models.some((c) => c.name === f.name));
      const { fallbacks: _all, ...alone } = model;
      merged.models.push(fallbacks?.length ? { ...model, fallbacks } : alone);
    }
  }
  return merged;
}

/** `credentials`: those the principal may use, for the keys behind its models (read only when some model has keys). */
function hostedCatalog(rows: UsableModelRow[], credentials: readonly CredentialRow[], allowPrivateUpstreams: boolean): ModelCatalog {
  const catalog: ModelCatalog & { prices: Map<string, ModelPrices> } = { models: [], problems: new Map(), prices: new Map() };
  const byId = new Map<string, ModelConfig>();
  const fallbackIds = new Map<ModelConfig, string[]>();
  const roleIds = new Map<ModelConfig, { compaction: string | null; subagent: string | null; image: string | null }>();
  for (const row of rows) {
    const name = row.model.name;
    // The rule may have tightened since the credential was stored.
    const urlProblem = checkUpstreamUrl(row.credential.baseUrl, allowPrivateUpstreams);
    if (urlProblem) {
      catalog.problems.set(name, `model ${name}: ${urlProblem}`);
      continue;
    }
    const keyProblem = storedKeyProblem(row);
    if (keyProblem) {
      catalog.problems.set(name, `model ${name}: ${keyProblem}`);
      continue;
    }
    const single = storedModelConfig({ ...row, wrappedDataKey: row.wrappedDataKey ?? "" });
    const keys = row.model.keysJson ? storedModelKeys(row, single, credentials, allowPrivateUpstreams, catalog.problems) : undefined;
    const config = keys ? { ...single, keys } : single;
    byId.set(row.model.id, config);
    fallbackIds.set(config, parseJson<string[]>(row.model.fallbacksJson) ?? []);
    roleIds.set(config, { compaction: row.model.compactionModelId, subagent: row.model.subagentModelId, image: row.model.imageModelId });
    catalog.models.push(config);
    catalog.prices.set(name, {
      inputPerMtok: row.model.priceInputPerMtok,
      outputPerMtok: row.model.priceOutputPerMtok,
      cacheReadPerMtok: row.model.priceCacheReadPerMtok,
      cacheWritePerMtok: row.model.priceCacheWritePerMtok,
    });
  }
  // Fallbacks the principal can use now, in order; one disabled, deleted or unusable since is skipped.
  // The same for its roles (docs/providers.md#roles): one the principal cannot use now is this model itself.
  catalog.models = catalog.models.map((config) => {
    const fallbacks = (fallbackIds.get(config) ?? []).flatMap((id) => byId.get(id) ?? []).filter((f) => f !== config);
    const roles = roleIds.get(config);
    const compaction = roles?.compaction ? byId.get(roles.compaction) : undefined;
    const subagent = roles?.subagent ? byId.get(roles.subagent) : undefined;
    // An image model only for a model without vision, and only one that takes images.
    const image = config.vision === false && roles?.image ? byId.get(roles.image) : undefined;
    return {
      ...config,
      ...(fallbacks.length > 0 && { fallbacks }),
      ...(compaction && compaction !== config && { compactionModel: compaction }),
      ...(subagent && subagent !== config && { subagentModel: subagent.name }),
      ...(image && image !== config && image.vision !== false && { imageModel: image }),
    };
  });
  return catalog;
}

/**
 * The keys behind a stored model (docs/providers.md#keys-behind-one-model): its own credential and
 * those its `keys_json` lists, each with its weight; one deleted, unusable or sealed to a key its
 * owner no longer holds is left out and said. Undefined when only its own is left.
 */
function storedModelKeys(
  row: UsableModelRow,
  single: ModelConfig,
  credentials: readonly CredentialRow[],
  allowPrivateUpstreams: boolean,
  problems: Map<string, string>,
): ModelKeys | undefined {
  const listed = modelKeysOf(row.model);
  const weightOf = (id: string) => listed.find((k) => k.credential_id === id)?.weight ?? 1;
  const keys: ModelKey[] = [keyOf(row.credential, single, weightOf(row.credential.id))];
  const missing: string[] = [];
  for (const { credential_id, weight } of listed) {
    if (credential_id === row.credential.id) continue;
    const credential = credentials.find((c) => c.id === credential_id && c.provider === row.credential.provider);
    const usable =
      credential &&
      !checkUpstreamUrl(credential.baseUrl, allowPrivateUpstreams) &&
      // A sealed personal key is checked per request instead (modelWithPersonalKey keeps it only for
      // a request that opens it), so only the team's data key is asked of it here.
      !storedKeyProblem({ ...row, credential, ownerPersonalKeyId: credential.personalKeyId });
    if (!usable) {
      missing.push(credential_id);
      continue;
    }
    keys.push(keyOf(credential, storedModelConfig({ ...row, credential, wrappedDataKey: row.wrappedDataKey ?? "" }), weight));
  }
  if (missing.length > 0) {
    problems.set(`${row.model.name} keys`, `model ${row.model.name}: keys ${missing.join(", ")} cannot be used now; left out`);
  }
  return keys.length > 1 ? { pool: `model:${row.model.id}`, keys } : undefined;
}

/** One key of a stored model: its credential's URL, headers and sealed key, versioned by when it was last written. */
function keyOf(credential: CredentialRow, config: ModelConfig, weight: number): ModelKey {
  return {
    id: credential.id,
    weight,
    version: storedKeyVersion(credential.updatedAtMs),
    baseUrl: config.baseUrl,
    apiKey: "",
    ...(config.headers && { headers: config.headers }),
    ...(config.storedKey && { storedKey: config.storedKey }),
  };
}

/** Why a stored model's secrets cannot be opened, before anyone tries: its personal key is lost, or its team has no data key. */
export function storedKeyProblem(row: UsableModelRow): string | undefined {
  const personalKeyId = row.credential.personalKeyId;
  if (personalKeyId !== null && personalKeyId !== row.ownerPersonalKeyId) return lostMessage(row.credential.id);
  // A keyless credential has nothing to open, so its team may have no data key yet; a sealed
  // personal one opens with its owner's key, not the team's.
  const underTeamKey =
    (personalKeyId === null && (row.credential.encryptedKey !== NO_KEY || row.credential.sealedHeaders !== null)) ||
    row.model.sealedHeaders !== null;
  return !row.wrappedDataKey && underTeamKey ? "its team has no data key, so its credential cannot be opened" : undefined;
}

/** A stored model as the providers take it, its key and header values still encrypted. */
export function storedModelConfig({
  model,
  credential,
  wrappedDataKey,
  previousWrappedDataKey,
}: UsableModelRow & { wrappedDataKey: string }): ModelConfig {
  const credentialHeaders = credential.sealedHeaders ?? parseJson<Record<string, string>>(credential.headersJson) ?? null;
  const modelHeaders = model.sealedHeaders ?? parseJson<Record<string, string>>(model.headersJson) ?? null;
  const sealedHeaders = typeof credentialHeaders === "string" || typeof modelHeaders === "string";
  // Rows written before header values were sealed keep working in clear until their next write.
  const headers = sealedHeaders ? {} : { ...(credentialHeaders as object | null), ...(modelHeaders as object | null) };
  const extraBody = parseJson<Record<string, unknown>>(model.extraBodyJson);
  return {
    name: model.name,
    provider: credential.provider,
    baseUrl: credential.baseUrl,
    apiKey: "",
    model: model.model,
    contextWindow: model.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    ...(model.maxOutputTokens !== null && { maxOutputTokens: model.maxOutputTokens }),
    ...(model.reasoningEffort !== null && { reasoningEffort: model.reasoningEffort }),
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(extraBody && { extraBody }),
    ...(model.fastServiceTier !== null && { fastServiceTier: model.fastServiceTier }),
    ...(model.stallTimeoutMs !== null && { stallTimeoutMs: model.stallTimeoutMs }),
    ...(!model.vision && { vision: false }),
    ...(model.codeMode && { codeMode: true }),
    storedKey: {
      teamId: credential.teamId,
      credentialId: credential.id,
      credentialUpdatedAtMs: credential.updatedAtMs,
      encryptedKey: credential.encryptedKey,
      wrappedDataKey,
      ...(previousWrappedDataKey !== null && { previousWrappedDataKey }),
      ...(sealedHeaders && { headers: { modelId: model.id, credential: credentialHeaders, model: modelHeaders } }),
      ...(credential.personalKeyId !== null && { personalKeyId: credential.personalKeyId }),
    },
  };
}

function parseJson<T>(text: string | null): T | undefined {
  return text ? (JSON.parse(text) as T) : undefined;
}
