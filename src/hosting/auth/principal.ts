// Who is calling (docs/hosting.md#principals). ADMIN_TOKEN is the operator;
// BYOK_TOKEN is the built-in single-user principal "local"; a `byok_…` user token
// is a user of a team, looked up in D1 through the per-isolate token cache. Where sign-on
// counts (the admin API and the sign-on routes, never a Cursor call), a request without a
// bearer token may be signed in by its session cookie or by Cloudflare Access
// (docs/hosting.md#single-sign-on).
// Every object name is scoped by the principal's id, so nobody can reach another
// principal's conversations (src/core/object-names.ts).
import { AppError } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import { d1 } from "../store/db.ts";
import type { Role } from "../store/schema/accounts.ts";
import { LOCAL_PRINCIPAL_ID } from "../store/local-account.ts";
import { ACCESS_SECRET_PREFIX, type OwnerSecret, ownerSecretOf } from "../keys/personal-key.ts";
import { ownerOfTokenHash, touchToken } from "../store/token-rows.ts";
import { ACCESS_HEADER } from "../sso/access.ts";
import { accessUser, forgetAccessUser } from "../sso/access-sign-in.ts";
import { isSameOrigin, sessionCookieOf } from "../sso/session.ts";
import { accessConfig, type SsoEnv } from "../sso/sso-config.ts";
import { AuthAttempts, clientAddress } from "./auth-attempts.ts";
import { limitTokenCall } from "./token-calls.ts";
import { TokenCache } from "./token-cache.ts";
import { isUserTokenShape, userTokenHash } from "./user-token.ts";

export type Principal = { kind: "local"; id: typeof LOCAL_PRINCIPAL_ID } | { kind: "operator"; id: "operator" } | UserPrincipal;

/** A principal that runs turns: everyone but the operator. */
export type RunnerPrincipal = Exclude<Principal, { kind: "operator" }>;

interface UserPrincipal {
  kind: "user";
  /** The user id: what object names are scoped by. */
  id: string;
  teamId: string;
  role: Role;
  email: string;
  /** The token or session row; `access:<user id>` for a request signed in by Cloudflare Access, which has none. */
  tokenId: string;
  /** How the request proved it: a bearer token, the dashboard's session cookie, or Cloudflare Access. */
  via: "token" | "session" | "access";
  /** The token presented, as an HKDF base key with its wrap: what opens the user's personal key (docs/keys-at-rest.md#personal-keys). */
  secret: OwnerSecret;
  /** The user's personal key id as of the token check; null: none. */
  personalKeyId: string | null;
}

interface AuthEnv extends SsoEnv {
  ADMIN_TOKEN?: string;
  BYOK_TOKEN?: string;
  DB: D1Database;
  AUTH_ATTEMPTS: RateLimit;
  TOKEN_CALLS: RateLimit;
}

const LOCAL: Principal = { kind: "local", id: LOCAL_PRINCIPAL_ID };
const OPERATOR: Principal = { kind: "operator", id: "operator" };

const tokenCache = new TokenCache();
const attempts = new AuthAttempts();

/**
 * The caller of a request, after the rate limits before work (docs/hosting.md#rate-limits): a
 * token not seen valid lately from the client's address is counted per address before it is
 * checked, and every authenticated call is counted per token.
 */
export async function authenticate(
  request: Request,
  env: AuthEnv,
  ctx: { waitUntil(promise: Promise<unknown>): void },
  options: { signOn?: boolean } = {},
): Promise<Principal> {
  const given = bearerToken(request);
  const address = clientAddress(request);
  const signOn = given === undefined && options.signOn ? signOnProof(request, env) : undefined;
  const proof = given ?? signOn?.secret;
  const tokenHash = proof === undefined ? "" : await userTokenHash(proof);
  await attempts.admit(address, tokenHash, env.AUTH_ATTEMPTS);
  const principal = signOn ? await signedOn(signOn, tokenHash, request, env, ctx) : await identify(given, tokenHash, env, ctx);
  attempts.seenValid(address, tokenHash);
  await limitTokenCall(env.TOKEN_CALLS, callKey(principal));
  return principal;
}

/** Whose calls a principal's are counted as: one user token (by row id), the operator, or the single user. */
function callKey(principal: Principal): string {
  return principal.kind === "user" ? `token:${principal.tokenId}` : principal.kind;
}

async function identify(
  given: string | undefined,
  tokenHash: string,
  env: AuthEnv,
  ctx: { waitUntil(promise: Promise<unknown>): void },
): Promise<Principal> {
  if (given !== undefined) {
    // Each configured secret is compared, in constant time, whichever matches.
    const [operator, local] = await Promise.all([sameSecret(given, env.ADMIN_TOKEN), sameSecret(given, env.BYOK_TOKEN)]);
    if (operator) return OPERATOR;
    if (local) return LOCAL;
    if (isUserTokenShape(given)) {
      const user = await userOfToken(given, tokenHash, env.DB, ctx, "token");
      if (user) return user;
    }
  }
  if (!env.ADMIN_TOKEN && !env.BYOK_TOKEN && (given === undefined || !isUserTokenShape(given))) {
    throw new AppError(
      "unauthenticated",
      "byok-edge has neither BYOK_TOKEN (single user) nor ADMIN_TOKEN (hosting) configured; set one in .dev.vars or as a secret",
    );
  }
  throw new AppError("unauthenticated", "missing or invalid bearer token");
}

/** What a request without a bearer token signs on with: its session cookie, else an Access assertion (when Access is configured). */
type SignOnProof = { kind: "session"; secret: string; assertion: string | undefined } | { kind: "access"; secret: string };

function signOnProof(request: Request, env: AuthEnv): SignOnProof | undefined {
  const assertion = (accessConfig(env) && request.headers.get(ACCESS_HEADER)) || undefined;
  const session = sessionCookieOf(request);
  if (session !== undefined) return { kind: "session", secret: session, assertion };
  if (assertion) return { kind: "access", secret: assertion };
  return undefined;
}

async function signedOn(
  proof: SignOnProof,
  tokenHash: string,
  request: Request,
  env: AuthEnv,
  ctx: { waitUntil(promise: Promise<unknown>): void },
): Promise<Principal> {
  // A cookie or Access rides along with any request the browser makes, so a change must come from our own pages.
  if (!isSameOrigin(request)) {
    throw new AppError("permission_denied", "a change signed in by cookie or Cloudflare Access must come from this deployment's own pages");
  }
  if (proof.kind === "session") {
    const user = isUserTokenShape(proof.secret) ? await userOfToken(proof.secret, tokenHash, env.DB, ctx, "session") : undefined;
    if (user) return user;
    // An ended session's cookie, left in a browser Access still lets through: Access says who it is.
    if (proof.assertion) return signedOn({ kind: "access", secret: proof.assertion }, tokenHash, request, env, ctx);
    throw new AppError("unauthenticated", "your sign-in session has ended or is not valid; sign in again");
  }
  const config = accessConfig(env);
  if (!config) throw new AppError("unauthenticated", "Cloudflare Access is not configured here");
  const row = await accessUser(config, proof.secret, request, env.DB);
  const user: UserPrincipal = {
    kind: "user",
    id: row.id,
    teamId: row.teamId,
    role: row.role,
    email: row.email,
    tokenId: `${ACCESS_SECRET_PREFIX}${row.id}`,
    via: "access",
    // No secret of the person's stays the same from one Access assertion to the next: nothing is wrapped for it.
    secret: await ownerSecretOf(`${ACCESS_SECRET_PREFIX}${row.id}`, proof.secret, null),
    personalKeyId: row.personalKeyId,
  };
  return user;
}

/** The operator manages the deployment; it never runs turns (docs/hosting.md#principals). */
export function requireRunner(principal: Principal): RunnerPrincipal {
  if (principal.kind === "operator") {
    throw new AppError("permission_denied", "the operator token (ADMIN_TOKEN) manages the deployment; use a user token to run the agent");
  }
  return principal;
}

/** This isolate forgets a token or a user's tokens at once (other isolates within 5 s). */
export function forgetCachedToken(tokenId: string): void {
  tokenCache.forgetToken(tokenId);
}

export function forgetCachedUser(userId: string): void {
  tokenCache.forgetUser(userId);
  forgetAccessUser(userId);
}

/** @internal Tests move the token cache's clock instead of sleeping. */
export function setTokenClock(now: () => number): void {
  tokenCache.setClock(now);
}

async function userOfToken(
  given: string,
  tokenHash: string,
  database: D1Database,
  ctx: { waitUntil(promise: Promise<unknown>): void },
  kind: "token" | "session",
) {
  const db = d1(database);
  let owner: Awaited<ReturnType<typeof ownerOfTokenHash>>;
  try {
    owner = await tokenCache.resolve(tokenHash, {
      lookup: (hash, nowMs) => ownerOfTokenHash(db, hash, nowMs),
      touch: (tokenId, nowMs, intervalMs) => touchToken(db, tokenId, nowMs, intervalMs),
      waitUntil: (promise) => ctx.waitUntil(promise),
    });
  } catch (err) {
    console.error("byok-edge: token lookup failed:", errorKind(err));
    throw new AppError("unavailable", "the token could not be checked just now; try again");
  }
  // No user token acts as the single user, even one a row of its own would let be issued.
  if (!owner || owner.userId === LOCAL_PRINCIPAL_ID) return undefined;
  // A session is a cookie's and a token a bearer's: neither stands in for the other.
  if (owner.kind !== kind) return undefined;
  const user: UserPrincipal = {
    kind: "user",
    id: owner.userId,
    teamId: owner.teamId,
    role: owner.role,
    email: owner.email,
    tokenId: owner.tokenId,
    via: kind,
    secret: await ownerSecretOf(owner.tokenId, given, owner.personalKeyWrap),
    personalKeyId: owner.personalKeyId,
  };
  return user;
}

export function bearerToken(request: Request): string | undefined {
  const match = (request.headers.get("authorization") ?? "").match(/^Bearer\s+(.+)$/i);
  const token = match?.[1]?.trim();
  return token ? token : undefined;
}

/** Constant-time comparison of digests, so neither length nor content leaks through timing. */
export async function sameSecret(given: string, expected: string | undefined): Promise<boolean> {
  if (!expected) return false;
  const enc = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", enc.encode(given)),
    crypto.subtle.digest("SHA-256", enc.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
