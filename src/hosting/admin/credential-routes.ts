// Stored provider credentials (docs/hosting.md#credentials-and-models): a member
// keeps personal ones, a team's admins keep the team's. The key and the header values
// are encrypted with the team's data key on the way in and never shown again: only
// the key's last four and the headers' names.
import { createRoute, z } from "@hono/zod-openapi";
import { forgetModelCatalogs } from "../config/principal-models.ts";
import { checkCustomHeaders } from "../../provider/upstream-headers.ts";
import { usageKeyProblem } from "../../provider/usage-keys.ts";
import { checkUpstreamUrl } from "../../provider/upstream-url.ts";
import { encryptCredentialKey, keyLastFour, NO_KEY } from "../keys/credential-key.ts";
import { AppError } from "../../core/errors.ts";
import type { AppEnv } from "../../core/env.ts";
import {
  type CredentialRow,
  credentialById,
  credentialsVisibleTo,
  deleteCredential,
  insertCredential,
  replaceCredentialKey,
} from "../store/credential-rows.ts";
import { type D1Db, d1, newId } from "../store/db.ts";
import { ensureLocalAccount } from "../store/local-account.ts";
import { ownedReach, requireCreator, visibleScope, within } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { auditEntries, recordsDenial } from "./audit-context.ts";
import { invalidField } from "./admin-errors.ts";
import { BEARER, displayName, errorResponses, idParam, iso, json, jsonBody, Timestamp } from "./schemas.ts";
import { loadKeyring } from "../keys/kek.ts";
import { headerNames, NO_HEADERS, openHeaders, sealHeaders, type StoredHeaders } from "../keys/sealed-headers.ts";
import { keyThatSealed, teamDataKey, withTeamDataKey } from "../keys/team-data-key.ts";
import { type KeyHolder, personalKeyForWrite } from "../keys/owner-key.ts";
import { forgetCachedToken, type Principal } from "../auth/principal.ts";
import type { AuditEntry } from "../store/audit-rows.ts";
import { STALE_DATA_KEY } from "../store/data-key-rows.ts";

const Provider = z.enum(["openai-chat", "openai-responses", "anthropic"]);
export const Scope = z.enum(["user", "team"]).openapi({ description: '"user": yours alone; "team": the whole team (admins only)' });
const ApiKey = z.string().trim().min(1).max(4096).openapi({ description: "The provider key; stored encrypted, never shown again" });
/** A new credential's key; left out or empty for a server that checks none (docs/hosting.md#credentials-and-models). */
const NewKey = z.string().trim().max(4096).default("").openapi({
  description: "The provider key; stored encrypted, never shown again. Empty or left out: none (a local server that checks no key)",
});
/** Extra request headers; never auth, host, framing or hop-by-hop ones (docs/outbound-safety.md). */
export const Headers = z
  .record(z.string().min(1).max(200), z.string().max(4096))
  .refine((h) => Object.keys(h).length <= 32, "at most 32 headers")
  .openapi({
    description: "Extra request headers; their values are stored encrypted and never shown again, only their names (header_names)",
    example: { "x-team": "platform" },
  });

/** What the API shows of stored headers (docs/hosting.md#header-values). */
export const HeaderNames = z.array(z.string()).openapi({ description: "The names of the stored headers; their values are never shown" });

const CredentialSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    provider: Provider,
    base_url: z.string(),
    scope: Scope,
    header_names: HeaderNames,
    key_last_four: z
      .string()
      .openapi({ description: "The key's last four characters; empty for keys under 8 characters and without a key" }),
    has_key: z.boolean().openapi({ description: "False for a credential stored without a key: its calls send none" }),
    sealed_to_owner: z.boolean().openapi({
      description: "A personal credential sealed to its owner's own tokens: nobody else, admins and the operator included, can use it",
    }),
    status: z.enum(["ok", "broken"]).openapi({
      description:
        "broken: its provider refused the key (401 or 403) since it was last written; models with several keys skip it until it is rotated (docs/providers.md#keys-behind-one-model)",
    }),
    broken_at: Timestamp.nullable().openapi({ description: "When its provider first refused it; null when not broken" }),
    broken_reason: z.string().nullable().openapi({ example: "the provider refused the key (HTTP 401)" }),
    team_id: z.string(),
    owner_user_id: z.string().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .openapi("Credential");

const CreateCredential = z
  .strictObject({
    name: displayName("OpenAI (team)"),
    provider: Provider,
    base_url: z.string().trim().min(1).max(2048).openapi({ example: "https://api.openai.com/v1" }),
    api_key: NewKey,
    scope: Scope,
    headers: Headers.optional(),
  })
  .openapi("CreateCredential");

const RotateCredential = z.strictObject({ api_key: ApiKey }).openapi("RotateCredential");

export const credentialRoutes = adminRoutes();

credentialRoutes.openapi(
  createRoute({
    method: "post",
    path: "/credentials",
    summary: 'Store a provider key: scope "user" (anyone) or "team" (the team\'s admins)',
    security: BEARER,
    middleware: [recordsDenial("credential.create", { kind: "credential" })],
    request: { body: jsonBody(CreateCredential) },
    responses: { 201: json(CredentialSchema, "The credential, without its key"), ...errorResponses(403, 412) },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const account = requireCreator(c.var.principal, body.scope, "credential");
    checkOutbound(c.env, body.base_url, body.headers);
    const keyless = body.api_key === "";
    const sealed = !keyless || Object.keys(body.headers ?? {}).length > 0;
    // Before any row is written: the single user's account rows too.
    if (sealed) await loadKeyring(c.env, "created");
    const db = d1(c.env.DB);
    const now = Date.now();
    if (c.var.principal.kind === "local") await ensureLocalAccount(db, now);
    const id = newId("cred");
    const unsealed: CredentialRow = {
      id,
      teamId: account.teamId,
      ownerUserId: body.scope === "user" ? account.id : null,
      scope: body.scope,
      name: body.name,
      provider: body.provider,
      baseUrl: body.base_url.replace(/\/+$/, ""),
      headersJson: null,
      ...NO_HEADERS,
      encryptedKey: NO_KEY,
      keyLastFour: keyLastFour(body.api_key),
      personalKeyId: null,
      brokenAtMs: null,
      brokenReason: null,
      createdAtMs: now,
      updatedAtMs: now,
      deletedAtMs: null,
    };
    const holder = keyHolderOf(c.var.principal, body.scope);
    if (!sealed || holder) {
      // A personal credential is sealed with its owner's personal key, not the team's (docs/keys-at-rest.md#personal-keys).
      const key = sealed && holder ? await personalKeyForWrite(db, holder, now) : undefined;
      const owner = { teamId: account.teamId, credentialId: id };
      const row: CredentialRow = key
        ? {
            ...unsealed,
            encryptedKey: keyless ? NO_KEY : await encryptCredentialKey(key, owner, body.api_key),
            ...(await sealHeaders(key, { teamId: account.teamId, kind: "credential", id }, body.headers)),
            personalKeyId: key.idText,
          }
        : unsealed;
      await insertCredential(db, row, auditEntries(c, now, [credentialRecord("credential.create", row)]));
      // This token may have just got its wrap of a new personal key: this isolate reads it at once.
      if (holder && key) forgetCachedToken(holder.secret.secretId);
      return c.json(credentialJson(row), 201);
    }
    const row = await withTeamDataKey(c.env, db, account.teamId, async ({ dataKey, wrapped }) => {
      const owner = { teamId: account.teamId, credentialId: id };
      const sealedRow: CredentialRow = {
        ...unsealed,
        encryptedKey: keyless ? NO_KEY : await encryptCredentialKey(dataKey, owner, body.api_key),
        ...(await sealHeaders(dataKey, { teamId: account.teamId, kind: "credential", id }, body.headers)),
      };
      const audit = auditEntries(c, now, [credentialRecord("credential.create", sealedRow)]);
      return (await insertCredential(db, sealedRow, audit, wrapped)) === "created" ? sealedRow : STALE_DATA_KEY;
    });
    return c.json(credentialJson(row), 201);
  },
);

credentialRoutes.openapi(
  createRoute({
    method: "get",
    path: "/credentials",
    summary: "List the credentials the caller may use (own and team's; every one for the operator), never their keys",
    security: BEARER,
    request: {
      query: z.object({
        team_id: z.string().max(100).optional().openapi({ description: "Operator only: one team's credentials" }),
      }),
    },
    responses: { 200: json(z.object({ credentials: z.array(CredentialSchema) }), "The credentials"), ...errorResponses() },
  }),
  async (c) => {
    const { team_id } = c.req.valid("query");
    const rows = await credentialsVisibleTo(d1(c.env.DB), visibleScope(c.var.principal, team_id));
    return c.json({ credentials: rows.map(credentialJson) }, 200);
  },
);

credentialRoutes.openapi(
  createRoute({
    method: "post",
    path: "/credentials/{credential_id}/rotate",
    summary: "Replace a credential's key (its owner; a team credential: the team's admins)",
    security: BEARER,
    middleware: [recordsDenial("credential.rotate", { kind: "credential", param: "credential_id" })],
    request: { params: idParam("credential_id"), body: jsonBody(RotateCredential) },
    responses: { 200: json(CredentialSchema, "The credential with its new key_last_four"), ...errorResponses(403, 404, 412) },
  }),
  async (c) => {
    const { credential_id } = c.req.valid("param");
    const { api_key } = c.req.valid("json");
    const db = d1(c.env.DB);
    const credential = await managed(c.var.principal, db, credential_id);
    if (credential.scope === "user" && c.var.principal.kind === "operator") {
      // Its key is sealed to its owner (docs/keys-at-rest.md#personal-keys): only they can enter a new one.
      throw new AppError("permission_denied", `credential ${credential_id} is personal: only its owner can replace its key`);
    }
    const now = Date.now();
    const audit = auditEntries(c, now, [credentialRecord("credential.rotate", credential)]);
    const owner = { teamId: credential.teamId, credentialId: credential.id };
    const holder = keyHolderOf(c.var.principal, credential.scope);
    const row = holder
      ? await rotateSealedToOwner(c.env, db, credential, holder, api_key, now, audit)
      : await withTeamDataKey(c.env, db, credential.teamId, async ({ dataKey, wrapped }) => {
          const encryptedKey = await encryptCredentialKey(dataKey, owner, api_key);
          return replaceCredentialKey(db, credential, { encryptedKey, keyLastFour: keyLastFour(api_key) }, wrapped, now, audit);
        });
    if (!row) throw new AppError("not_found", `credential ${credential_id} not found`);
    forgetModelCatalogs();
    return c.json(credentialJson(row), 200);
  },
);

credentialRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/credentials/{credential_id}",
    summary: "Delete a credential (its owner; a team credential: the team's admins); models on it stop being listed",
    security: BEARER,
    middleware: [recordsDenial("credential.delete", { kind: "credential", param: "credential_id" })],
    request: { params: idParam("credential_id") },
    responses: { 204: { description: "Deleted" }, ...errorResponses(403, 404) },
  }),
  async (c) => {
    const { credential_id } = c.req.valid("param");
    const db = d1(c.env.DB);
    const credential = await managed(c.var.principal, db, credential_id);
    const now = Date.now();
    await deleteCredential(db, credential.id, now, auditEntries(c, now, [credentialRecord("credential.delete", credential)]));
    forgetModelCatalogs();
    return c.body(null, 204);
  },
);

/** Who a personal credential is sealed to: a user, by the token of this request; none for the single user and for team credentials. */
function keyHolderOf(principal: Principal, scope: "user" | "team"): KeyHolder | undefined {
  return principal.kind === "user" && scope === "user" ? { userId: principal.id, secret: principal.secret } : undefined;
}

/**
 * A personal credential's new key, sealed with its owner's personal key: the one they hold, or a
 * new one when the old is lost. Its header values move with it: from the team's data key (rows
 * stored before sealing) or kept under the same personal key; under a lost one they cannot.
 */
async function rotateSealedToOwner(
  env: AppEnv,
  db: D1Db,
  credential: CredentialRow,
  holder: KeyHolder,
  apiKey: string,
  now: number,
  audit: [AuditEntry, ...AuditEntry[]],
) {
  const key = await personalKeyForWrite(db, holder, now);
  const owner = { teamId: credential.teamId, credentialId: credential.id };
  const headersOwner = { teamId: credential.teamId, kind: "credential", id: credential.id } as const;
  let headers: StoredHeaders = { sealedHeaders: credential.sealedHeaders, headerNamesJson: credential.headerNamesJson };
  if (credential.personalKeyId !== key.idText) {
    if (credential.personalKeyId !== null && credential.sealedHeaders !== null) {
      throw new AppError(
        "failed_precondition",
        `credential ${credential.id}'s header values were sealed to a personal key of yours that is lost; delete it and create it again with its headers`,
      );
    }
    const plain = credential.sealedHeaders
      ? await openHeaders(
          keyThatSealed(await teamDataKey(env, db, credential.teamId), credential.sealedHeaders),
          headersOwner,
          credential.sealedHeaders,
        )
      : (JSON.parse(credential.headersJson ?? "null") as Record<string, string> | null);
    headers = await sealHeaders(key, headersOwner, plain);
  }
  const sealed = {
    encryptedKey: await encryptCredentialKey(key, owner, apiKey),
    keyLastFour: keyLastFour(apiKey),
    personalKeyId: key.idText,
  };
  const row = await replaceCredentialKey(db, credential, { ...sealed, ...headers, headersJson: null }, null, now, audit);
  // This token may have just got its wrap of a new personal key: this isolate reads it at once.
  forgetCachedToken(holder.secret.secretId);
  if (row === STALE_DATA_KEY) throw new AppError("internal", "a write not conditional on the team's data key was answered stale");
  return row;
}

/** A credential's audit entry: what it is, never its key or header values (docs/hosting.md#audit-log). */
function credentialRecord(action: "credential.create" | "credential.rotate" | "credential.delete", row: CredentialRow) {
  const names = headerNames(row);
  return {
    action,
    target: { kind: "credential", id: row.id, name: row.name, userId: row.ownerUserId },
    teamId: row.teamId,
    details: { scope: row.scope, provider: row.provider, has_key: row.encryptedKey !== NO_KEY, header_names: names },
  };
}

/** A credential the caller may change: 404 outside their reach, 403 when they only see it. */
async function managed(principal: Parameters<typeof ownedReach>[0], db: D1Db, id: string): Promise<CredentialRow> {
  return within(await credentialById(db, id), (cred) => ownedReach(principal, cred), "manage", `credential ${id}`);
}

/** base_url and headers as the outbound rules allow (docs/outbound-safety.md). */
export function checkOutbound(env: AppEnv, baseUrl: string | undefined, headers: Record<string, string> | undefined): void {
  const urlProblem = baseUrl === undefined ? undefined : checkUpstreamUrl(baseUrl, env.BYOK_ALLOW_PRIVATE_UPSTREAMS === "true");
  if (urlProblem) throw invalidField("body.base_url", urlProblem);
  const headerProblem = headers ? checkCustomHeaders(headers) : undefined;
  // checkCustomHeaders says "headers: <why>"; the field is body.headers.
  if (headerProblem) throw invalidField("body.headers", headerProblem.replace(/^headers: /, ""));
  refuseUsageKeys(undefined, headers);
}

/** A key of `extra_body` or `headers` that would turn accounting off, refused by name (docs/hosting.md#limits). */
export function refuseUsageKeys(
  extraBody: Record<string, unknown> | null | undefined,
  headers: Record<string, string> | null | undefined,
): void {
  const problem = usageKeyProblem(extraBody, headers);
  if (problem) throw invalidField(`body.${problem.path}`, problem.message);
}

function credentialJson(row: CredentialRow) {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    base_url: row.baseUrl,
    scope: row.scope,
    header_names: headerNames(row),
    key_last_four: row.keyLastFour,
    has_key: row.encryptedKey !== NO_KEY,
    sealed_to_owner: row.personalKeyId !== null,
    status: row.brokenAtMs === null ? ("ok" as const) : ("broken" as const),
    broken_at: row.brokenAtMs === null ? null : iso(row.brokenAtMs),
    broken_reason: row.brokenReason,
    team_id: row.teamId,
    owner_user_id: row.ownerUserId,
    created_at: iso(row.createdAtMs),
    updated_at: iso(row.updatedAtMs),
  };
}
