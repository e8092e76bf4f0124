// BYOK_MODELS: the operator's models, validated once per isolate. A bad entry is
// reported (without its key) and left out instead of taking the whole service down.
import { z } from "zod";
import { describeIssues, issuesOf } from "../../core/zod-issues.ts";
import type { ModelConfig, ModelKey, ModelKeys, ProviderKind } from "../../provider/types.ts";
import type { ModelPrices } from "./model-prices.ts";
import { checkUpstreamUrl } from "../../provider/upstream-url.ts";
import { usageKeyProblem } from "../../provider/usage-keys.ts";
import { fingerprint } from "../../core/fingerprint.ts";

/** Providers with a working implementation today; the others are refused clearly. */
const SUPPORTED_PROVIDERS: readonly ProviderKind[] = ["openai-chat", "openai-responses", "anthropic"];

export const DEFAULT_CONTEXT_WINDOW = 200_000;

const entrySchema = z.object({
  name: z.string().min(1).max(200),
  provider: z.enum(["openai-chat", "openai-responses", "anthropic"]),
  base_url: z.string().min(1),
  // Left out or empty for a server that checks no key (a local one): no key header is sent.
  api_key: z.string().default(""),
  model: z.string().min(1),
  context_window: z.number().int().positive().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  reasoning_effort: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  extra_body: z.record(z.string(), z.unknown()).optional(),
  fast_service_tier: z.string().min(1).optional(),
  stall_timeout_ms: z.number().int().min(1_000).max(3_600_000).optional(),
  retry_budget_ms: z.number().int().min(0).max(600_000).optional(),
  vision: z.boolean().optional(),
  code_mode: z.boolean().optional(),
  /**
   * More keys behind this model, spread by weight (docs/providers.md#keys-behind-one-model); its own
   * `api_key` is one of them with weight 1 unless listed. Each may have its own URL and headers.
   */
  keys: z
    .array(
      z.strictObject({
        api_key: z.string(),
        base_url: z.string().min(1).optional(),
        weight: z.number().int().min(1).max(1_000).optional(),
        headers: z.record(z.string(), z.string()).optional(),
      }),
    )
    .max(10)
    .optional(),
  /** Other entries' names, tried in order (docs/providers.md#fallbacks). */
  fallbacks: z.array(z.string().min(1).max(200)).max(5).optional(),
  /** Other entries' names: the model that writes its summaries, the one its subagents run on (docs/providers.md#roles). */
  compaction_model: z.string().min(1).max(200).optional(),
  subagent_model: z.string().min(1).max(200).optional(),
  /** For a model with `vision: false`: another entry's name, that describes each image in its place. */
  image_model: z.string().min(1).max(200).optional(),
});

export interface ModelCatalog {
  models: ModelConfig[];
  /** Why a configured entry is unusable, by its name ("#<index>" when it has none). */
  problems: Map<string, string>;
  /** Stored models' prices by name, for the usage ledger's cost_usd (src/hosting/config/model-prices.ts). */
  prices?: ReadonlyMap<string, ModelPrices>;
}

function parseModelCatalog(raw: string | undefined, allowPrivateUpstreams: boolean): ModelCatalog {
  const catalog: ModelCatalog = { models: [], problems: new Map() };
  if (!raw || raw.trim() === "") return catalog;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    catalog.problems.set("BYOK_MODELS", "BYOK_MODELS is not valid JSON");
    return catalog;
  }
  if (!Array.isArray(parsed)) {
    catalog.problems.set("BYOK_MODELS", "BYOK_MODELS must be a JSON array of model objects");
    return catalog;
  }
  const fallbackNames = new Map<string, string[]>();
  const roleNames = new Map<string, { compaction?: string; subagent?: string; image?: string }>();
  parsed.forEach((item, index) => {
    const label = typeof item?.name === "string" && item.name ? item.name : `#${index}`;
    const result = entrySchema.safeParse(item);
    if (!result.success) {
      // Paths and messages only: zod issues never echo the offending values here.
      const why = describeIssues(issuesOf(result.error, { topLevel: "entry" }));
      catalog.problems.set(label, `model ${label} is misconfigured: ${why}`);
      return;
    }
    const entry = result.data;
    if (!SUPPORTED_PROVIDERS.includes(entry.provider)) {
      catalog.problems.set(
        label,
        `model ${label} uses provider "${entry.provider}", which byok-edge does not support yet (supported: ${SUPPORTED_PROVIDERS.join(", ")})`,
      );
      return;
    }
    const urlProblem = checkUpstreamUrl(entry.base_url, allowPrivateUpstreams);
    if (urlProblem) {
      catalog.problems.set(label, `model ${label}: ${urlProblem}`);
      return;
    }
    const usageKey = usageKeyProblem(entry.extra_body, entry.headers);
    if (usageKey) {
      catalog.problems.set(label, `model ${label}: ${usageKey.path}: ${usageKey.message}`);
      return;
    }
    if (catalog.models.some((m) => m.name === entry.name)) {
      catalog.problems.set(label, `model ${label} is configured twice; the first entry wins`);
      return;
    }
    const keys = entry.keys?.length ? byokKeys(entry, allowPrivateUpstreams) : undefined;
    if (typeof keys === "string") {
      catalog.problems.set(label, `model ${label}: ${keys}`);
      return;
    }
    catalog.models.push({
      name: entry.name,
      provider: entry.provider,
      baseUrl: entry.base_url.replace(/\/+$/, ""),
      apiKey: entry.api_key,
      model: entry.model,
      contextWindow: entry.context_window ?? DEFAULT_CONTEXT_WINDOW,
      ...(entry.max_output_tokens !== undefined && { maxOutputTokens: entry.max_output_tokens }),
      ...(entry.reasoning_effort !== undefined && { reasoningEffort: entry.reasoning_effort }),
      ...(entry.headers !== undefined && { headers: entry.headers }),
      ...(entry.extra_body !== undefined && { extraBody: entry.extra_body }),
      ...(entry.fast_service_tier !== undefined && { fastServiceTier: entry.fast_service_tier }),
      ...(entry.stall_timeout_ms !== undefined && { stallTimeoutMs: entry.stall_timeout_ms }),
      ...(entry.retry_budget_ms !== undefined && { retryBudgetMs: entry.retry_budget_ms }),
      ...(entry.vision === false && { vision: false }),
      ...(entry.code_mode === true && { codeMode: true }),
      ...(keys && { keys }),
    });
    if (entry.fallbacks?.length) fallbackNames.set(entry.name, entry.fallbacks);
    if (entry.compaction_model || entry.subagent_model || entry.image_model) {
      roleNames.set(entry.name, { compaction: entry.compaction_model, subagent: entry.subagent_model, image: entry.image_model });
    }
  });
  resolveRoles(catalog, roleNames);
  resolveFallbacks(catalog, fallbackNames);
  return catalog;
}

/**
 * The keys of an entry with `keys`: its own first (`<name>#0`), then each listed one that is not
 * its own (`<name>#<i + 1>` for `keys[i]`), or why one cannot be used. Undefined when only its own is left.
 */
function byokKeys(entry: z.infer<typeof entrySchema>, allowPrivateUpstreams: boolean): ModelKeys | undefined | string {
  const baseUrl = entry.base_url.replace(/\/+$/, "");
  const listed = entry.keys ?? [];
  const isOwn = (k: (typeof listed)[number]) => k.api_key === entry.api_key && (k.base_url ?? entry.base_url) === entry.base_url;
  const own: ModelKey = {
    id: `${entry.name}#0`,
    weight: listed.find(isOwn)?.weight ?? 1,
    version: keyVersion(entry.api_key, baseUrl, entry.headers),
    baseUrl,
    apiKey: entry.api_key,
    ...(entry.headers && { headers: entry.headers }),
  };
  const keys: ModelKey[] = [own];
  for (const [i, key] of listed.entries()) {
    if (isOwn(key)) continue;
    const url = (key.base_url ?? entry.base_url).replace(/\/+$/, "");
    const urlProblem = checkUpstreamUrl(url, allowPrivateUpstreams);
    if (urlProblem) return `keys.${i}.base_url: ${urlProblem}`;
    const usageKey = usageKeyProblem(undefined, key.headers);
    if (usageKey) return `keys.${i}.${usageKey.path}: ${usageKey.message}`;
    const headers = key.headers ?? entry.headers;
    keys.push({
      id: `${entry.name}#${i + 1}`,
      weight: key.weight ?? 1,
      version: keyVersion(key.api_key, url, headers),
      baseUrl: url,
      apiKey: key.api_key,
      ...(headers && { headers }),
    });
  }
  return keys.length > 1 ? { pool: `byok:${entry.name}`, keys } : undefined;
}

/** A key's version: a broken mark holds until its key, URL or headers change (a fingerprint, which says nothing usable of the key). */
function keyVersion(apiKey: string, baseUrl: string, headers: Record<string, string> | undefined): string {
  return fingerprint(JSON.stringify([baseUrl, apiKey, headers ?? {}]), 16);
}

/** Gives each model the models its roles name; a name that is not another configured model is left out and said. */
function resolveRoles(catalog: ModelCatalog, names: ReadonlyMap<string, { compaction?: string; subagent?: string; image?: string }>): void {
  const byName = new Map(catalog.models.map((m) => [m.name, m]));
  for (const [i, model] of catalog.models.entries()) {
    const wanted = names.get(model.name);
    if (!wanted) continue;
    const usable = (name: string | undefined) => (name && name !== model.name && byName.has(name) ? name : undefined);
    for (const [field, name] of [
      ["compaction_model", wanted.compaction],
      ["subagent_model", wanted.subagent],
    ] as const) {
      if (name && !usable(name))
        catalog.problems.set(`${model.name} ${field}`, `model ${model.name}: ${field} ${name} is not another configured model; left out`);
    }
    const compaction = usable(wanted.compaction);
    const subagent = usable(wanted.subagent);
    // An image model is one that takes images, for one that does not.
    const image = model.vision === false ? usable(wanted.image) : undefined;
    if (image && byName.get(image)!.vision === false) {
      catalog.problems.set(`${model.name} image_model`, `model ${model.name}: image_model ${image} does not take images either; left out`);
    }
    const describer = image && byName.get(image)!.vision !== false ? byName.get(image)! : undefined;
    catalog.models[i] = {
      ...model,
      ...(compaction && { compactionModel: byName.get(compaction)! }),
      ...(subagent && { subagentModel: subagent }),
      ...(describer && { imageModel: describer }),
    };
  }
}

/**
 * Gives each model the models its `fallbacks` name. A name that is not a usable model of the
 * catalog, or the model itself, is left out and said (the model keeps working without it).
 */
function resolveFallbacks(catalog: ModelCatalog, names: ReadonlyMap<string, string[]>): void {
  const byName = new Map(catalog.models.map((m) => [m.name, m]));
  for (const [i, model] of catalog.models.entries()) {
    const wanted = names.get(model.name);
    if (!wanted) continue;
    const found = [...new Set(wanted)].filter((name) => name !== model.name && byName.has(name));
    const missing = wanted.filter((name) => !found.includes(name));
    if (missing.length > 0) {
      catalog.problems.set(
        `${model.name} fallbacks`,
        `model ${model.name}: fallbacks ${missing.join(", ")} are not other configured models; left out`,
      );
    }
    if (found.length === 0) continue;
    // The entries as parsed, before any got fallbacks: a fallback never falls back further.
    const fallbacks = found.map((name) => byName.get(name)!);
    catalog.models[i] = { ...model, fallbacks };
  }
}

const cache = new Map<string, ModelCatalog>();

/** Parsed once per distinct configuration string (env is fixed per isolate). */
export function modelCatalogFromEnv(env: { BYOK_MODELS?: string; BYOK_ALLOW_PRIVATE_UPSTREAMS?: string }): ModelCatalog {
  const allowPrivate = env.BYOK_ALLOW_PRIVATE_UPSTREAMS === "true";
  const key = `${allowPrivate}\u0000${env.BYOK_MODELS ?? ""}`;
  let catalog = cache.get(key);
  if (!catalog) {
    catalog = parseModelCatalog(env.BYOK_MODELS, allowPrivate);
    for (const problem of catalog.problems.values()) console.warn(`byok-edge: ${problem}`);
    cache.set(key, catalog);
  }
  return catalog;
}
