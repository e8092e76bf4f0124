// The Models page's form as data (pages/model-form.tsx): the fields of a model to add,
// edit or duplicate, and the request body they make (POST / PATCH /api/v1/models).
import type { CatalogueFill } from "../providers/catalogue.ts";
import type { Credential, Model, Scope } from "../types.ts";
import { emptyRows, type HeaderRow, headersOf, headersPatchOf, storedRows } from "../ui/header-rows.ts";

export type ModelFormMode = { kind: "add" } | { kind: "edit"; model: Model } | { kind: "duplicate"; model: Model };

export interface Draft {
  name: string;
  credential_id: string;
  model: string;
  scope: Scope;
  context_window: string;
  max_output_tokens: string;
  reasoning_effort: string;
  fast_service_tier: string;
  stall_timeout_ms: string;
  price_input_per_mtok: string;
  price_output_per_mtok: string;
  price_cache_read_per_mtok: string;
  price_cache_write_per_mtok: string;
  vision: boolean;
  code_mode: boolean;
  enabled: boolean;
  headers: HeaderRow[];
  /** The names of the headers stored on the model being edited (their values are never shown). */
  stored_headers: string[];
  extra_body: string;
  /**
   * The credentials behind the model besides its own, with their weights as typed, and its own
   * credential's weight (docs/providers.md#keys-behind-one-model).
   */
  keys: { credential_id: string; weight: string }[];
  own_weight: string;
  /** The models to fall back to, by id, in the order they were chosen (docs/providers.md#fallbacks). */
  fallbacks: string[];
  /** The role models by id (docs/providers.md#roles); "": this model. */
  compaction_model_id: string;
  subagent_model_id: string;
  image_model_id: string;
}

export const NUMBERS = [
  "context_window",
  "max_output_tokens",
  "stall_timeout_ms",
  "price_input_per_mtok",
  "price_output_per_mtok",
  "price_cache_read_per_mtok",
  "price_cache_write_per_mtok",
] as const;
const TEXTS = ["reasoning_effort", "fast_service_tier"] as const;

const text = (v: number | string | null | undefined) => (v === null || v === undefined ? "" : String(v));

/**
 * The form's fields for `mode`. A new model is personal; a duplicate keeps the original's scope only
 * when the caller may add team models (`mayAddTeam`: the team's admins), else it is personal, the
 * one scope the form then offers.
 */
export function draftOf(mode: ModelFormMode, credentials: Credential[], mayAddTeam: boolean): Draft {
  const m = mode.kind === "add" ? undefined : mode.model;
  const scope: Scope = !m ? "user" : mode.kind === "duplicate" && !mayAddTeam ? "user" : m.scope;
  return {
    name: m ? (mode.kind === "duplicate" ? `${m.name}-copy` : m.name) : "",
    credential_id: m?.credential_id ?? credentials[0]?.id ?? "",
    model: m?.model ?? "",
    scope,
    context_window: text(m?.context_window),
    max_output_tokens: text(m?.max_output_tokens),
    reasoning_effort: text(m?.reasoning_effort),
    fast_service_tier: text(m?.fast_service_tier),
    stall_timeout_ms: text(m?.stall_timeout_ms),
    price_input_per_mtok: text(m?.price_input_per_mtok),
    price_output_per_mtok: text(m?.price_output_per_mtok),
    price_cache_read_per_mtok: text(m?.price_cache_read_per_mtok),
    price_cache_write_per_mtok: text(m?.price_cache_write_per_mtok),
    vision: m?.vision ?? true,
    code_mode: m?.code_mode ?? false,
    enabled: m?.enabled ?? true,
    // A duplicate cannot copy values it never sees: their names come back to be filled in.
    headers: mode.kind === "edit" ? storedRows(m?.header_names) : emptyRows(m?.header_names),
    stored_headers: mode.kind === "edit" ? [...(m?.header_names ?? [])] : [],
    extra_body: m?.extra_body ? JSON.stringify(m.extra_body, null, 2) : "",
    keys: (m?.keys ?? [])
      .filter((k) => k.credential_id !== m?.credential_id)
      .map((k) => ({ credential_id: k.credential_id, weight: String(k.weight) })),
    own_weight: String(m?.keys?.find((k) => k.credential_id === m.credential_id)?.weight ?? 1),
    fallbacks: [...(m?.fallbacks ?? [])],
    compaction_model_id: m?.compaction_model_id ?? "",
    subagent_model_id: m?.subagent_model_id ?? "",
    image_model_id: m?.image_model_id ?? "",
  };
}

/**
 * The request body. An empty optional field is left out of a new model and cleared (null) in an
 * edit. A number that does not parse is sent as typed, so the API's own message says what is wrong.
 */
export function bodyOf(d: Draft, editing: boolean): { body: Record<string, unknown> } | { problems: Record<string, string> } {
  const empty = editing ? null : undefined;
  const body: Record<string, unknown> = { name: d.name, credential_id: d.credential_id, model: d.model };
  if (!editing) body.scope = d.scope;
  for (const key of NUMBERS) {
    const raw = d[key].trim();
    const n = Number(raw);
    body[key] = raw === "" ? empty : Number.isFinite(n) ? n : raw;
  }
  for (const key of TEXTS) body[key] = d[key].trim() === "" ? empty : d[key];
  body.vision = d.vision;
  body.code_mode = d.code_mode;
  body.enabled = d.enabled;
  body.fallbacks = d.fallbacks.length > 0 ? d.fallbacks : empty;
  body.keys = keysOf(d) ?? empty;
  body.compaction_model_id = d.compaction_model_id || empty;
  body.subagent_model_id = d.subagent_model_id || empty;
  // Only a model without vision has its images described.
  body.image_model_id = (!d.vision && d.image_model_id) || empty;
  if (editing) body.headers = headersPatchOf(d.headers, d.stored_headers);
  else {
    const headers = headersOf(d.headers);
    if (Object.keys(headers).length > 0) body.headers = headers;
  }
  if (d.extra_body.trim() === "") body.extra_body = empty;
  else {
    try {
      body.extra_body = JSON.parse(d.extra_body) as unknown;
    } catch {
      return { problems: { extra_body: 'This is not valid JSON; write an object such as {"temperature": 0.2}.' } };
    }
  }
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return { body };
}

/**
 * The credentials that may be keys behind the draft's model: those of its credential's provider
 * kind, besides that one, and for a team model team credentials only (the API's rule).
 */
export function keyChoices(credentials: Credential[], d: Draft): Credential[] {
  const own = credentials.find((c) => c.id === d.credential_id);
  return credentials.filter((c) => own && c.id !== own.id && c.provider === own.provider && (d.scope === "user" || c.scope === "team"));
}

/** The draft with only the keys the form shows (a credential deleted or of another kind since is dropped, not sent unseen). */
export function withShownKeys(d: Draft, credentials: Credential[]): Draft {
  const shown = new Set(keyChoices(credentials, d).map((c) => c.id));
  return { ...d, keys: d.keys.filter((k) => shown.has(k.credential_id)) };
}

/**
 * The keys a body sends: the ticked ones, and the model's own only when its weight is not the
 * default 1; none (undefined) when no other key is ticked. A weight that does not parse is sent
 * as typed, for the API to say what is wrong with it.
 */
function keysOf(d: Draft): { credential_id: string; weight: number | string }[] | undefined {
  const others = d.keys.filter((k) => k.credential_id !== d.credential_id);
  if (others.length === 0) return undefined;
  const weight = (raw: string) => (raw.trim() === "" ? 1 : Number.isFinite(Number(raw)) ? Number(raw) : raw);
  const own = weight(d.own_weight);
  return [
    ...(own !== 1 ? [{ credential_id: d.credential_id, weight: own }] : []),
    ...others.map((k) => ({ credential_id: k.credential_id, weight: weight(k.weight) })),
  ];
}

/**
 * The draft with what the catalogue filled in (providers/catalogue.ts): its figures replace the
 * fields', Takes images follows it where it says, and a reasoning model keeps an effort the user
 * chose (else "medium"), while one that does not reason gets none. Fields it does not know stay.
 */
export function withCatalogueFill(d: Draft, fill: Pick<CatalogueFill, "fields" | "vision" | "reasoningEffort">): Draft {
  const next: Draft = { ...d, ...fill.fields };
  if (fill.vision !== undefined) next.vision = fill.vision;
  if (fill.reasoningEffort !== undefined) {
    next.reasoning_effort = fill.reasoningEffort !== "" && d.reasoning_effort.trim() !== "" ? d.reasoning_effort : fill.reasoningEffort;
  }
  return next;
}
