// Stored models (docs/hosting.md#credentials-and-models): a name Cursor shows, on
// one of the caller's credentials, with the same settings as a BYOK_MODELS entry
// plus prices for the usage ledger. Personal ones are their owner's; team ones
// are the team's, changed by its admins. A name is unique within what one user sees.
import { createRoute, z } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal.ts";
import { DEFAULT_CONTEXT_WINDOW, modelCatalogFromEnv } from "../config/byok-models.ts";
import { forgetModelCatalogs } from "../config/principal-models.ts";
import { AppError } from "../../core/errors.ts";
import { type CredentialRow, credentialById } from "../store/credential-rows.ts";
import { type D1Db, d1, newId } from "../store/db.ts";
import {
  deleteModel,
  insertModel,
  modelKeysOf,
  type ModelPatch,
  type ModelRow,
  modelById,
  modelsVisibleTo,
  updateModel,
} from "../store/model-rows.ts";
import { ownedReach, requireCreator, visibleScope, within } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { auditEntries, type Recorded, recordsDenial } from "./audit-context.ts";
import { invalidField } from "./admin-errors.ts";
import { checkOutbound, HeaderNames, Headers, refuseUsageKeys, Scope } from "./credential-routes.ts";
import { headerNames, type HeadersOwner, NO_HEADERS, openHeaders, sealHeaders } from "../keys/sealed-headers.ts";
import { keyThatSealed, type TeamDataKey, withTeamDataKey } from "../keys/team-data-key.ts";
import { STALE_DATA_KEY } from "../store/data-key-rows.ts";
import {
  BEARER,
  displayName,
  errorResponses,
  idParam,
  iso,
  json,
  jsonBody,
  Timestamp,
  JSON_DEPTH_MAX,
  jsonDepthAtMost,
} from "./schemas.ts";

const Price = z.number().min(0).max(1_000_000).nullable().openapi({ description: "USD per million tokens; null: unknown", example: 2.5 });

/** The settings a BYOK_MODELS entry has (README), as stored fields; null clears one in a PATCH. */
const settings = {
  context_window: z.int().positive().max(100_000_000).nullable().openapi({ description: "Default 200000" }),
  max_output_tokens: z.int().positive().max(10_000_000).nullable(),
  reasoning_effort: z.string().trim().min(1).max(50).nullable().openapi({ example: "medium" }),
  extra_body: z
    .record(z.string(), z.unknown())
    .refine((body) => jsonDepthAtMost(body), `nests deeper than ${JSON_DEPTH_MAX} levels`)
    .nullable()
    .openapi({
      description:
        "Merged into every provider request body; keys that control streaming, usage reporting, output size, sampling count or the model (stream, stream_options, max_tokens, n, model, …) are refused (docs/hosting.md#limits)",
    }),
  fast_service_tier: z.string().trim().min(1).max(50).nullable().openapi({ example: "priority" }),
  stall_timeout_ms: z.int().min(1_000).max(3_600_000).nullable(),
  fallbacks: z.array(z.string().min(1).max(100)).max(5).nullable().openapi({
    description:
      "Model ids to move on to, in order, when a call fails before anything streamed (docs/providers.md#fallbacks): models its users may all use (a team model's: team models); null: none",
  }),
  keys: z
    .array(
      z.strictObject({
        credential_id: z.string().min(1).max(100),
        weight: z.int().min(1).max(1_000).optional().openapi({ description: "Its share of the calls, relative to the others'; default 1" }),
      }),
    )
    .max(10)
    .nullable()
    .openapi({
      description:
        "More credentials of the same provider kind behind this model, spread by weight; its own credential is one of them with weight 1 unless listed. A key that answers 429 is skipped for its Retry-After (or a backoff), one its provider refuses is marked broken (docs/providers.md#keys-behind-one-model); null: its own only",
      example: [{ credential_id: "cred_…", weight: 2 }],
    }),
  compaction_model_id: z.string().min(1).max(100).nullable().openapi({
    description: "The model that writes this model's conversation summaries (docs/providers.md#roles); null: this model",
  }),
  subagent_model_id: z.string().min(1).max(100).nullable().openapi({
    description: "The model its subagents run on when the Task and the client choose none; null: this model",
  }),
  image_model_id: z.string().min(1).max(100).nullable().openapi({
    description: "For a model with vision false: a model that takes images and describes each in its place; null: images become a note",
  }),
  vision: z.boolean().openapi({ description: "False when the model cannot take images; default true" }),
  code_mode: z.boolean().openapi({ description: "True: Cursor runs are offered Codex's exec and wait tools; default false" }),
  enabled: z.boolean().openapi({ description: "Disabled models are not listed in Cursor nor usable; default true" }),
  price_input_per_mtok: Price,
  price_output_per_mtok: Price,
  price_cache_read_per_mtok: Price.openapi({ description: "USD per million cache-read tokens; null: the input price" }),
  price_cache_write_per_mtok: Price.openapi({ description: "USD per million cache-write tokens; null: the input price" }),
};

const Name = displayName("gpt-team");
const ProviderModel = z.string().trim().min(1).max(200).openapi({ description: "The provider's own model id", example: "gpt-5" });

const ModelSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    scope: Scope,
    credential_id: z.string(),
    model: z.string(),
    ...settings,
    header_names: HeaderNames,
    context_window: z.int(),
    team_id: z.string(),
    owner_user_id: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Model");

const optional = Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof settings]: z.ZodOptional<(typeof settings)[K]>;
};

/** A PATCH's headers: each named one set (a string) or removed (null); those not named are kept, values unseen. */
const HeadersPatch = z
  .record(z.string().min(1).max(200), z.string().max(4096).nullable())
  .refine((h) => Object.keys(h).length <= 32, "at most 32 headers")
  .openapi({
    description:
      "Each header named is set (a string) or removed (null); the others keep their stored values. null instead of an object: remove every header",
    example: { "x-team": "platform", "x-old": null },
  });

const CreateModel = z
  .strictObject({
    name: Name,
    credential_id: z.string().min(1).max(100),
    model: ProviderModel,
    scope: Scope,
    ...optional,
    headers: Headers.nullable().optional(),
  })
  .openapi("CreateModel");
const PatchModel = z
  .strictObject({
    name: Name.optional(),
    credential_id: z.string().min(1).max(100).optional(),
    model: ProviderModel.optional(),
    ...optional,
    headers: HeadersPatch.nullable().optional(),
  })
  .openapi("PatchModel");

/** A BYOK_MODELS entry as the single user's model list shows it: read-only, never its key. */
const ConfiguredModel = z
  .object({
    name: z.string(),
    provider: z.string(),
    base_url: z.string(),
    model: z.string(),
    context_window: z.int(),
    vision: z.boolean(),
    code_mode: z.boolean(),
    fallbacks: z.array(z.string()).openapi({ description: "The names of the entries it falls back to" }),
  })
  .openapi("ConfiguredModel");

const ModelList = z.object({
  models: z.array(ModelSchema),
  configured: z.array(ConfiguredModel).optional().openapi({
    description: "The single user (BYOK_TOKEN) only: its BYOK_MODELS entries, read-only (set in .dev.vars or as a secret)",
  }),
  configured_problems: z.array(z.string()).optional().openapi({
    description: "The single user only: why a BYOK_MODELS entry is left out (never its key)",
  }),
});

export const modelRoutes = adminRoutes();

modelRoutes.openapi(
  createRoute({
    method: "post",
    path: "/models",
    summary: 'Add a model on one of the caller\'s credentials: scope "user" (anyone) or "team" (the team\'s admins)',
    security: BEARER,
    middleware: [recordsDenial("model.create", { kind: "model" })],
    request: { body: jsonBody(CreateModel) },
    responses: { 201: json(ModelSchema, "The model"), ...errorResponses(403, 404, 409) },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const account = requireCreator(c.var.principal, body.scope, "model");
    checkOutbound(c.env, undefined, body.headers ?? undefined);
    refuseUsageKeys(body.extra_body, undefined);
    if (c.var.principal.kind === "local") refuseConfiguredName(c.env, body.name);
    const db = d1(c.env.DB);
    const owner = { teamId: account.teamId, scope: body.scope, ownerUserId: body.scope === "user" ? account.id : null };
    const credential = await usableCredential(db, c.var.principal, body.credential_id, owner);
    if (body.keys) await refuseUnusableKeys(db, c.var.principal, owner, credential, body.keys);
    if (body.fallbacks) await refuseUnusableFallbacks(db, owner, null, body.fallbacks);
    await refuseUnusableRoles(db, owner, null, body);
    const now = Date.now();
    const unsealed: ModelRow = {
      id: newId("mdl"),
      ...owner,
      name: body.name,
      credentialId: body.credential_id,
      model: body.model,
      ...UNSET,
      ...rowSettings(body),
      vision: body.vision ?? true,
      codeMode: body.code_mode ?? false,
      enabled: body.enabled ?? true,
      createdAtMs: now,
      updatedAtMs: now,
      deletedAtMs: null,
    };
    const sealing = Object.keys(body.headers ?? {}).length > 0;
    // The entry is built from the row as written, so it names the headers sealed into it.
    const entryOf = (written: ModelRow) => auditEntries(c, now, [modelRecord("model.create", written, Object.keys(body))]);
    const created = !sealing
      ? { row: unsealed, inserted: await insertModel(db, unsealed, entryOf(unsealed)) }
      : await withTeamDataKey(c.env, db, owner.teamId, async ({ dataKey, wrapped }) => {
          const row = { ...unsealed, ...(await sealHeaders(dataKey, headersOwner(unsealed), body.headers)) };
          const inserted = await insertModel(db, row, entryOf(row), wrapped);
          return inserted === STALE_DATA_KEY ? STALE_DATA_KEY : { row, inserted };
        });
    if (created.inserted === "name-taken") throw nameTaken(body.name);
    const row = created.row;
    forgetModelCatalogs();
    return c.json(modelJson(row), 201);
  },
);

modelRoutes.openapi(
  createRoute({
    method: "get",
    path: "/models",
    summary: "List the caller's models and the team's (every one for the operator), disabled ones too",
    security: BEARER,
    request: {
      query: z.object({ team_id: z.string().max(100).optional().openapi({ description: "Operator only: one team's models" }) }),
    },
    responses: { 200: json(ModelList, "The models"), ...errorResponses() },
  }),
  async (c) => {
    const principal = c.var.principal;
    const { team_id } = c.req.valid("query");
    const models = (await modelsVisibleTo(d1(c.env.DB), visibleScope(principal, team_id))).map(modelJson);
    if (principal.kind !== "local") return c.json({ models }, 200);
    const configured = modelCatalogFromEnv(c.env);
    return c.json(
      {
        models,
        configured: configured.models.map((m) => ({
          name: m.name,
          provider: m.provider,
          base_url: m.baseUrl,
          model: m.model,
          context_window: m.contextWindow,
          vision: m.vision !== false,
          code_mode: m.codeMode === true,
          fallbacks: (m.fallbacks ?? []).map((f) => f.name),
        })),
        configured_problems: [...configured.problems.values()],
      },
      200,
    );
  },
);

modelRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/models/{model_id}",
    summary: "Change a model (its owner; a team model: the team's admins)",
    security: BEARER,
    middleware: [recordsDenial(modelActions, { kind: "model", param: "model_id" })],
    request: { params: idParam("model_id"), body: jsonBody(PatchModel) },
    responses: { 200: json(ModelSchema, "The model"), ...errorResponses(403, 404, 409) },
  }),
  async (c) => {
    const { model_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = d1(c.env.DB);
    const model = within(await modelById(db, model_id), (m) => ownedReach(c.var.principal, m), "manage", `model ${model_id}`);
    if (body.headers) checkOutbound(c.env, undefined, headersSet(body.headers));
    refuseUsageKeys(body.extra_body, undefined);
    if (body.name !== undefined && c.var.principal.kind === "local") refuseConfiguredName(c.env, body.name);
    const credential =
      body.credential_id !== undefined ? await usableCredential(db, c.var.principal, body.credential_id, model) : undefined;
    // A new credential or new keys: the keys must still be of the credential's provider kind.
    const keys = body.keys === undefined ? modelKeysOf(model) : (body.keys ?? []);
    if ((credential || body.keys) && keys.length > 0) {
      const own = credential ?? (await credentialById(db, model.credentialId));
      if (own) await refuseUnusableKeys(db, c.var.principal, model, own, keys);
    }
    if (body.fallbacks) await refuseUnusableFallbacks(db, model, model.id, body.fallbacks);
    await refuseUnusableRoles(db, model, model.id, body);
    const patch: ModelPatch = {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.credential_id !== undefined && { credentialId: body.credential_id }),
      ...(body.model !== undefined && { model: body.model }),
      ...(body.vision !== undefined && { vision: body.vision }),
      ...(body.code_mode !== undefined && { codeMode: body.code_mode }),
      ...(body.enabled !== undefined && { enabled: body.enabled }),
      ...rowSettings(body),
    };
    const now = Date.now();
    // Entries from the final patch, so they name the headers as they are after it.
    const entriesOf = (final: ModelPatch) => {
      const [first, ...rest] = modelActions(body).map((action) => modelRecord(action, { ...model, ...final }, Object.keys(body)));
      return first ? auditEntries(c, now, [first, ...rest]) : [];
    };
    const cleared: ModelPatch = { ...patch, ...(body.headers === null && { ...NO_HEADERS, headersJson: null }) };
    const updated =
      body.headers === undefined || body.headers === null
        ? await updateModel(db, model, cleared, now, entriesOf(cleared))
        : await withTeamDataKey(c.env, db, model.teamId, async (key) => {
            // Read again: a retry after a rotation must open the headers as they are now sealed.
            const current = (await modelById(db, model.id)) ?? model;
            const headers = await patchedHeaders(key, current, body.headers ?? {});
            const stored: ModelPatch = { ...patch, ...(await sealHeaders(key.dataKey, headersOwner(current), headers)), headersJson: null };
            return updateModel(db, current, stored, now, entriesOf(stored), key.wrapped);
          });
    if (updated === "name-taken") throw nameTaken(body.name ?? "");
    // Stale only comes from an update without sealed headers, which has no key to go stale.
    if (updated === "gone" || updated === STALE_DATA_KEY) throw new AppError("not_found", `model ${model_id} not found`);
    forgetModelCatalogs();
    return c.json(modelJson(updated.model), 200);
  },
);

modelRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/models/{model_id}",
    summary: "Delete a model (its owner; a team model: the team's admins)",
    security: BEARER,
    middleware: [recordsDenial("model.delete", { kind: "model", param: "model_id" })],
    request: { params: idParam("model_id") },
    responses: { 204: { description: "Deleted" }, ...errorResponses(403, 404) },
  }),
  async (c) => {
    const { model_id } = c.req.valid("param");
    const db = d1(c.env.DB);
    const model = within(await modelById(db, model_id), (m) => ownedReach(c.var.principal, m), "manage", `model ${model_id}`);
    const now = Date.now();
    await deleteModel(db, model.id, now, auditEntries(c, now, [modelRecord("model.delete", model, [])]));
    forgetModelCatalogs();
    return c.body(null, 204);
  },
);

/** What a PATCH of a model records: enabling or disabling, and changing anything else, each its own action. */
function modelActions(body: Record<string, unknown>): ("model.update" | "model.enable" | "model.disable")[] {
  const toggle = body.enabled === undefined ? [] : [body.enabled ? ("model.enable" as const) : ("model.disable" as const)];
  const other = Object.keys(body).some((key) => key !== "enabled" && body[key] !== undefined) ? (["model.update"] as const) : [];
  return [...other, ...toggle];
}

/** A model's audit entry: the fields a change names and its header names, never a value of those (docs/hosting.md#audit-log). */
function modelRecord(action: Recorded["action"], row: ModelRow, fields: string[]): Recorded {
  const names = headerNames(row);
  return {
    action,
    target: { kind: "model", id: row.id, name: row.name, userId: row.ownerUserId },
    teamId: row.teamId,
    details: {
      scope: row.scope,
      credential_id: row.credentialId,
      ...(action === "model.update" && { fields: fields.filter((f) => f !== "enabled").sort() }),
      ...(action === "model.create" && { model: row.model, enabled: row.enabled }),
      header_names: names,
    },
  };
}

/**
 * The credential a model of `owner` may run on: one the caller sees (else 404), of the model's
 * team; a team model needs a team credential, so nobody's personal key serves the whole team.
 */
async function usableCredential(
  db: D1Db,
  principal: Principal,
  credentialId: string,
  owner: { teamId: string; scope: "user" | "team"; ownerUserId: string | null },
): Promise<CredentialRow> {
  const credential = within(
    await credentialById(db, credentialId),
    (cred) => ownedReach(principal, cred),
    "view",
    `credential ${credentialId}`,
  );
  if (credential.teamId !== owner.teamId) throw new AppError("not_found", `credential ${credentialId} not found`);
  if (owner.scope === "team" && credential.scope !== "team") {
    throw invalidField("body.credential_id", "a team model needs a team credential, not a personal one");
  }
  if (owner.scope === "user" && credential.scope === "user" && credential.ownerUserId !== owner.ownerUserId) {
    throw new AppError("not_found", `credential ${credentialId} not found`);
  }
  return credential;
}

/**
 * The keys behind a model (docs/providers.md#keys-behind-one-model): credentials the model may run
 * on (the rule of its own credential) of the same provider kind, each named once. Anything else is
 * invalid_argument naming it, whether the credential is missing or someone else's.
 */
async function refuseUnusableKeys(
  db: D1Db,
  principal: Principal,
  owner: ModelOwner,
  own: CredentialRow,
  keys: readonly { credential_id: string }[],
): Promise<void> {
  const ids = keys.map((k) => k.credential_id);
  if (new Set(ids).size !== ids.length) throw invalidField("body.keys", "names a credential twice");
  for (const [i, { credential_id }] of keys.entries()) {
    const path = `body.keys.${i}.credential_id`;
    const credential =
      credential_id === own.id
        ? own
        : await usableCredential(db, principal, credential_id, owner).catch((err: unknown) => {
            if (!(err instanceof AppError)) throw err;
            const who = owner.scope === "team" ? "a team credential of the same team" : "one of your credentials or your team's";
            throw invalidField(path, `credential ${credential_id} is not ${who}`);
          });
    if (credential.provider !== own.provider) {
      throw invalidField(path, `credential ${credential_id} is for ${credential.provider}; this model's is for ${own.provider}`);
    }
  }
}

/**
 * Fallbacks every user of the model may use (docs/providers.md#fallbacks): models of its team,
 * live, and for a team model team models only (a member's personal model would serve nobody else);
 * never the model itself. Anything else is invalid_argument naming it.
 */
async function refuseUnusableFallbacks(db: D1Db, owner: ModelOwner, selfId: string | null, ids: string[]): Promise<void> {
  if (new Set(ids).size !== ids.length) throw invalidField("body.fallbacks", "names a model twice");
  for (const [i, id] of ids.entries()) await refuseUnusableTarget(db, owner, selfId, id, `body.fallbacks.${i}`);
}

/** The role models (docs/providers.md#roles), by the same rule as fallbacks. */
async function refuseUnusableRoles(
  db: D1Db,
  owner: ModelOwner,
  selfId: string | null,
  body: { compaction_model_id?: string | null; subagent_model_id?: string | null; image_model_id?: string | null },
): Promise<void> {
  for (const field of ["compaction_model_id", "subagent_model_id", "image_model_id"] as const) {
    const id = body[field];
    if (id) await refuseUnusableTarget(db, owner, selfId, id, `body.${field}`);
  }
}

type ModelOwner = { teamId: string; scope: "user" | "team"; ownerUserId: string | null };

async function refuseUnusableTarget(db: D1Db, owner: ModelOwner, selfId: string | null, id: string, path: string): Promise<void> {
  const target = id === selfId ? undefined : await modelById(db, id);
  const usable =
    target !== undefined &&
    target.teamId === owner.teamId &&
    (target.scope === "team" || (owner.scope === "user" && target.ownerUserId === owner.ownerUserId));
  if (!usable) {
    const who = owner.scope === "team" ? "a team model of the same team" : "one of your models or your team's";
    throw invalidField(path, `model ${id} is not ${who} (nor the model itself)`);
  }
}

function headersOwner(model: ModelRow): HeadersOwner {
  return { teamId: model.teamId, kind: "model", id: model.id };
}

/** The headers a PATCH sets, for the outbound rules (those it keeps were checked when set). */
function headersSet(patch: Record<string, string | null>): Record<string, string> {
  return Object.fromEntries(Object.entries(patch).filter((entry): entry is [string, string] => entry[1] !== null));
}

/** The model's stored headers with a PATCH's applied: opened here, re-sealed by the caller, never returned. */
async function patchedHeaders(key: TeamDataKey, model: ModelRow, patch: Record<string, string | null>): Promise<Record<string, string>> {
  const stored = model.sealedHeaders
    ? await openHeaders(keyThatSealed(key, model.sealedHeaders), headersOwner(model), model.sealedHeaders)
    : model.headersJson
      ? (JSON.parse(model.headersJson) as Record<string, string>)
      : {};
  const headers = { ...stored };
  // Header names are case-insensitive: a patch naming one in another case replaces it.
  for (const [name, value] of Object.entries(patch)) {
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    if (value !== null) headers[name] = value;
  }
  if (Object.keys(headers).length > 32) throw invalidField("body.headers", "at most 32 headers");
  return headers;
}

/** The single user's stored models and BYOK_MODELS share one list in Cursor, so one name each. */
function refuseConfiguredName(env: { BYOK_MODELS?: string }, name: string): void {
  if (modelCatalogFromEnv(env).models.some((m) => m.name === name)) {
    throw new AppError("already_exists", `a model named "${name}" is set in BYOK_MODELS; pick another name`);
  }
}

function nameTaken(name: string): AppError {
  return new AppError("already_exists", `a model named "${name}" already exists among the models its users see (their own and the team's)`);
}

/** A new model's settings before its body's: none set. */
const UNSET = {
  contextWindow: null,
  maxOutputTokens: null,
  reasoningEffort: null,
  headersJson: null,
  ...NO_HEADERS,
  extraBodyJson: null,
  fastServiceTier: null,
  stallTimeoutMs: null,
  fallbacksJson: null,
  keysJson: null,
  compactionModelId: null,
  subagentModelId: null,
  imageModelId: null,
  priceInputPerMtok: null,
  priceOutputPerMtok: null,
  priceCacheReadPerMtok: null,
  priceCacheWritePerMtok: null,
} satisfies ModelPatch;

type SettingsBody = Partial<{ [K in keyof typeof settings]: z.infer<(typeof settings)[K]> }>;

/** The settings present in a body, as row fields (absent: unchanged; null: cleared). */
function rowSettings(body: SettingsBody): ModelPatch {
  const set = <T>(value: T | undefined) => value !== undefined;
  return {
    ...(set(body.context_window) && { contextWindow: body.context_window }),
    ...(set(body.max_output_tokens) && { maxOutputTokens: body.max_output_tokens }),
    ...(set(body.reasoning_effort) && { reasoningEffort: body.reasoning_effort }),
    ...(set(body.extra_body) && { extraBodyJson: body.extra_body ? JSON.stringify(body.extra_body) : null }),
    ...(set(body.fast_service_tier) && { fastServiceTier: body.fast_service_tier }),
    ...(set(body.stall_timeout_ms) && { stallTimeoutMs: body.stall_timeout_ms }),
    ...(set(body.fallbacks) && { fallbacksJson: body.fallbacks?.length ? JSON.stringify(body.fallbacks) : null }),
    ...(set(body.keys) && {
      keysJson: body.keys?.length
        ? JSON.stringify(body.keys.map((k) => ({ credential_id: k.credential_id, weight: k.weight ?? 1 })))
        : null,
    }),
    ...(set(body.compaction_model_id) && { compactionModelId: body.compaction_model_id }),
    ...(set(body.subagent_model_id) && { subagentModelId: body.subagent_model_id }),
    ...(set(body.image_model_id) && { imageModelId: body.image_model_id }),
    ...(set(body.price_input_per_mtok) && { priceInputPerMtok: body.price_input_per_mtok }),
    ...(set(body.price_output_per_mtok) && { priceOutputPerMtok: body.price_output_per_mtok }),
    ...(set(body.price_cache_read_per_mtok) && { priceCacheReadPerMtok: body.price_cache_read_per_mtok }),
    ...(set(body.price_cache_write_per_mtok) && { priceCacheWritePerMtok: body.price_cache_write_per_mtok }),
  };
}

function modelJson(row: ModelRow) {
  return {
    id: row.id,
    name: row.name,
    scope: row.scope,
    credential_id: row.credentialId,
    model: row.model,
    context_window: row.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    max_output_tokens: row.maxOutputTokens,
    reasoning_effort: row.reasoningEffort,
    header_names: headerNames(row),
    extra_body: row.extraBodyJson ? (JSON.parse(row.extraBodyJson) as Record<string, unknown>) : null,
    fast_service_tier: row.fastServiceTier,
    stall_timeout_ms: row.stallTimeoutMs,
    fallbacks: row.fallbacksJson ? (JSON.parse(row.fallbacksJson) as string[]) : [],
    keys: modelKeysOf(row),
    compaction_model_id: row.compactionModelId,
    subagent_model_id: row.subagentModelId,
    image_model_id: row.imageModelId,
    vision: row.vision,
    code_mode: row.codeMode,
    enabled: row.enabled,
    price_input_per_mtok: row.priceInputPerMtok,
    price_output_per_mtok: row.priceOutputPerMtok,
    price_cache_read_per_mtok: row.priceCacheReadPerMtok,
    price_cache_write_per_mtok: row.priceCacheWritePerMtok,
    team_id: row.teamId,
    owner_user_id: row.ownerUserId,
    created_at: iso(row.createdAtMs),
    updated_at: iso(row.updatedAtMs),
  };
}
