// A user's tokens: issued, listed and revoked by the operator, the team's admins
// and the user. The token is shown once, at issue; only its hash is stored. Issuing and
// revoking are recorded in the audit log; a token issued by someone else names them
// (`issued_by`) in its user's list (docs/hosting.md#audit-log).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { forgetCachedToken, type Principal } from "../auth/principal.ts";
import { newUserToken, userTokenHash } from "../auth/user-token.ts";
import { AppError } from "../../core/errors.ts";
import { type D1Db, d1, newId } from "../store/db.ts";
import { ownerSecretOf } from "../keys/personal-key.ts";
import { wrapForSecret } from "../keys/owner-key.ts";
import { setTokenWrap } from "../store/personal-key-rows.ts";
import { issueToken, liveTokenCount, revokeToken, type TokenRow, tokenById, tokensOfUser } from "../store/token-rows.ts";
import { activeUser, type UserRow } from "../store/user-rows.ts";
import { teamById } from "../store/team-rows.ts";
import { userReach, within } from "./access.ts";
import { type AdminEnv, adminRoutes } from "./admin-context.ts";
import { actorOf, auditEntries, recordsDenial } from "./audit-context.ts";
import { invalidField } from "./admin-errors.ts";
import { BEARER, displayName, errorResponses, idParam, iso, json, jsonBody, Timestamp } from "./schemas.ts";

/** Enough for every device and script of one person; more usually means tokens are not revoked. */
const MAX_LIVE_TOKENS_PER_USER = 50;

const TokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    created_at: Timestamp,
    expires_at: Timestamp.nullable(),
    last_used_at: Timestamp.nullable().openapi({ description: "Updated at most once a minute" }),
    revoked_at: Timestamp.nullable(),
    issued_by: z
      .object({
        kind: z.enum(["operator", "user", "local", "sso"]),
        id: z.string(),
        email: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "Who issued it when not its own user (the operator or an admin); null: the user did" }),
    holds_personal_key: z.boolean().openapi({
      description:
        "It can use your personal credentials: issued by you from a token that could, unlocked, or the one that created your personal key",
    }),
  })
  .openapi("Token");

const UnlockToken = z
  .strictObject({
    token: z.string().min(1).max(200).openapi({ description: "The token to unlock itself (byok_…), which proves you hold it" }),
  })
  .openapi("UnlockToken");

const IssuedTokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    token: z.string().openapi({ description: "The bearer token; shown only in this response", example: "byok_…" }),
    created_at: Timestamp,
    expires_at: Timestamp.nullable(),
  })
  .openapi("IssuedToken");

const IssueToken = z
  .strictObject({
    name: displayName("laptop"),
    expires_at: z.iso.datetime({ offset: true }).nullable().optional().openapi({
      description:
        "When the token stops working (ISO-8601); absent or null: never, or the end of the team's max_token_days when it has one",
    }),
  })
  .openapi("IssueToken");

export const tokenRoutes = adminRoutes();

tokenRoutes.openapi(
  createRoute({
    method: "post",
    path: "/users/{user_id}/tokens",
    summary: "Issue a token for a user (operator, the team's admins, the user)",
    security: BEARER,
    middleware: [recordsDenial("token.issue", { kind: "token" })],
    request: { params: idParam("user_id"), body: jsonBody(IssueToken) },
    responses: { 201: json(IssuedTokenSchema, "The token, shown this once"), ...errorResponses(404, 429) },
  }),
  async (c) => {
    const { user_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = d1(c.env.DB);
    const now = Date.now();
    const user = within(await activeUser(db, user_id), (u) => userReach(c.var.principal, u), "view", `user ${user_id}`);
    const asked = body.expires_at ? Date.parse(body.expires_at) : null;
    const { row, token } = await issueTokenFor(c, user, body.name, asked, now);
    return c.json({ id: row.id, name: row.name, token, created_at: iso(row.createdAtMs), expires_at: iso(row.expiresAtMs) }, 201);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: "get",
    path: "/users/{user_id}/tokens",
    summary: "List a user's tokens, never the tokens themselves (operator, the team's admins, the user)",
    security: BEARER,
    request: { params: idParam("user_id") },
    responses: { 200: json(z.object({ tokens: z.array(TokenSchema) }), "The user's tokens, revoked ones too"), ...errorResponses(404) },
  }),
  async (c) => {
    const { user_id } = c.req.valid("param");
    const db = d1(c.env.DB);
    const user = within(await activeUser(db, user_id), (u) => userReach(c.var.principal, u), "view", `user ${user_id}`);
    return c.json({ tokens: (await tokensOfUser(db, user.id)).map(tokenJson) }, 200);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/tokens/{token_id}",
    summary: "Revoke a token (operator, the team's admins, the user); it stops working within 5 s everywhere",
    security: BEARER,
    middleware: [recordsDenial("token.revoke", { kind: "token", param: "token_id" })],
    request: { params: idParam("token_id") },
    responses: { 204: { description: "Revoked (revoking again changes nothing)" }, ...errorResponses(404) },
  }),
  async (c) => {
    const { token_id } = c.req.valid("param");
    const db = d1(c.env.DB);
    const token = await tokenById(db, token_id);
    const owner = token ? await activeUser(db, token.userId) : undefined;
    const user = within(owner, (u) => userReach(c.var.principal, u), "view", `token ${token_id}`);
    const now = Date.now();
    await revokeToken(
      db,
      { id: token_id, userId: user.id },
      now,
      auditEntries(c, now, [
        {
          action: "token.revoke",
          target: { kind: "token", id: token_id, name: token?.name, userId: user.id },
          teamId: user.teamId,
          details: { user_id: user.id },
        },
      ]),
    );
    forgetCachedToken(token_id);
    return c.body(null, 204);
  },
);

tokenRoutes.openapi(
  createRoute({
    method: "post",
    path: "/tokens/{token_id}/unlock",
    summary:
      "Let one of your tokens use your personal credentials (a token an admin issued for you, say), from a token of yours that already can",
    security: BEARER,
    middleware: [recordsDenial("token.unlock", { kind: "token", param: "token_id" })],
    request: { params: idParam("token_id"), body: jsonBody(UnlockToken) },
    responses: { 200: json(TokenSchema, "The token, now holding your personal key"), ...errorResponses(403, 404, 412) },
  }),
  async (c) => {
    const { token_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = d1(c.env.DB);
    const now = Date.now();
    const found = await tokenById(db, token_id);
    const owner = found ? await activeUser(db, found.userId) : undefined;
    const { token, user } = within(
      found && owner ? { token: found, user: owner } : undefined,
      ({ user }) => userReach(c.var.principal, user),
      "view",
      `token ${token_id}`,
    );
    const principal = c.var.principal;
    if (principal.kind !== "user" || principal.id !== user.id) {
      throw new AppError(
        "permission_denied",
        "only the token's own user can unlock it, from a token of theirs that holds their personal key",
      );
    }
    if (token.revokedAtMs !== null || (token.expiresAtMs !== null && token.expiresAtMs <= now)) {
      throw new AppError("failed_precondition", `token ${token_id} is revoked or expired`);
    }
    if ((await userTokenHash(body.token)) !== token.tokenHash) throw invalidField("body.token", `is not token ${token_id}`);
    const wrapped = await wrapForSecret(
      db,
      { userId: user.id, secret: principal.secret },
      await ownerSecretOf(token.id, body.token, null),
      now,
    );
    if (wrapped === "no-key") {
      throw new AppError(
        "failed_precondition",
        "you hold no personal key: your next personal credential creates one, sealed to the token you create it with",
      );
    }
    if (wrapped === "not-held") {
      throw new AppError(
        "failed_precondition",
        "the token this request carries does not hold your personal key; unlock from one that does",
      );
    }
    const audit = auditEntries(c, now, [
      {
        action: "token.unlock",
        target: { kind: "token", id: token.id, name: token.name, userId: user.id },
        teamId: user.teamId,
        details: { user_id: user.id, issued_by_other: token.issuedByKind !== null },
      },
    ]);
    if (!(await setTokenWrap(db, token, wrapped.keyId, wrapped.wrap, now, audit))) {
      throw new AppError("aborted", `token ${token_id} or your personal key changed during the unlock; try again`);
    }
    forgetCachedToken(token.id);
    return c.json(tokenJson({ ...token, personalKeyWrap: wrapped.wrap }), 200);
  },
);

/**
 * Issues a token for `user` as the request's principal: within the team's lifetime cap and the
 * live-token limit, holding the user's personal key when they issue it from a secret that does,
 * recorded as token.issue. Also the connector's browser login (src/hosting/sso/connector-login.ts).
 */
export async function issueTokenFor(
  c: Context<AdminEnv>,
  user: UserRow,
  name: string,
  askedExpiresAtMs: number | null,
  now: number,
  details: Record<string, unknown> = {},
): Promise<{ row: TokenRow; token: string }> {
  const db = d1(c.env.DB);
  const expiresAtMs = await tokenExpiry(db, user.teamId, askedExpiresAtMs, now);
  if ((await liveTokenCount(db, user.id, now)) >= MAX_LIVE_TOKENS_PER_USER) {
    throw new AppError("resource_exhausted", `user ${user.id} already has ${MAX_LIVE_TOKENS_PER_USER} live tokens; revoke one first`);
  }
  const token = newUserToken();
  const principal = c.var.principal;
  const forOther = principal.kind !== "user" || principal.id !== user.id;
  // A token its own user issues while holding their personal key holds it too (docs/keys-at-rest.md#personal-keys).
  const id = newId("tok");
  const personalKeyWrap = forOther ? null : await wrapForNewToken(db, principal, id, token, now);
  const issued = {
    id,
    userId: user.id,
    name,
    tokenHash: await userTokenHash(token),
    expiresAtMs,
    issuedBy: forOther ? actorOf(principal) : null,
    personalKeyWrap,
  };
  const row = await issueToken(db, issued, now, (t) =>
    auditEntries(c, now, [
      {
        action: "token.issue",
        target: { kind: "token", id: t.id, name: t.name, userId: user.id },
        teamId: user.teamId,
        details: { user_id: user.id, for_other: forOther, expires_at: iso(t.expiresAtMs), ...details },
      },
    ]),
  );
  return { row, token };
}

/**
 * When a new token of the team's user stops working: as asked, within the team's max_token_days
 * (docs/hosting.md#single-sign-on); asked for no expiry under a cap, at the cap.
 */
export async function tokenExpiry(db: D1Db, teamId: string, asked: number | null, now: number): Promise<number | null> {
  if (asked !== null && asked <= now) throw invalidField("body.expires_at", "must be in the future");
  const days = (await teamById(db, teamId))?.maxTokenDays ?? null;
  if (days === null) return asked;
  const cap = now + days * 24 * 60 * 60 * 1000;
  if (asked === null) return cap;
  if (asked > cap) throw invalidField("body.expires_at", `must be within the team's token lifetime of ${days} days (max_token_days)`);
  return asked;
}

/** The new token's wrap of its user's personal key, when the request's own token holds that key. */
async function wrapForNewToken(db: D1Db, principal: Principal, tokenId: string, token: string, now: number): Promise<string | null> {
  if (principal.kind !== "user") return null;
  const wrapped = await wrapForSecret(
    db,
    { userId: principal.id, secret: principal.secret },
    await ownerSecretOf(tokenId, token, null),
    now,
  );
  return typeof wrapped === "object" ? wrapped.wrap : null;
}

function tokenJson(token: TokenRow) {
  return {
    id: token.id,
    name: token.name,
    created_at: iso(token.createdAtMs),
    expires_at: iso(token.expiresAtMs),
    last_used_at: iso(token.lastUsedAtMs),
    revoked_at: iso(token.revokedAtMs),
    issued_by:
      token.issuedByKind && token.issuedById ? { kind: token.issuedByKind, id: token.issuedById, email: token.issuedByEmail } : null,
    holds_personal_key: token.personalKeyWrap !== null,
  };
}
