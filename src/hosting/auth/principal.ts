// Who is calling (docs/hosting.md#principals). ADMIN_TOKEN is the operator;
// BYOK_TOKEN is the built-in single-user principal "local"; a `byok_…` user token
// is a user of a team, looked up in D1 through the per-isolate token cache.
// Every object name is scoped by the principal's id, so nobody can reach another
// principal's conversations (src/core/object-names.ts).
import { AppError } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import { d1 } from "../store/db.ts";
import type { Role } from "../store/schema/accounts.ts";
import { LOCAL_PRINCIPAL_ID } from "../store/local-account.ts";
import { type OwnerSecret, ownerSecretOf } from "../keys/personal-key.ts";
import { ownerOfTokenHash, touchToken } from "../store/token-rows.ts";
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
  tokenId: string;
  /** The token presented, as an HKDF base key with its wrap: what opens the user's personal key (docs/keys-at-rest.md#personal-keys). */
  secret: OwnerSecret;
  /** The user's personal key id as of the token check; null: none. */
  personalKeyId: string | null;
}

interface AuthEnv {
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
): Promise<Principal> {
  const given = bearerToken(request);
  const address = clientAddress(request);
  const tokenHash = given === undefined ? "" : await userTokenHash(given);
  await attempts.admit(address, tokenHash, env.AUTH_ATTEMPTS);
  const principal = await identify(given, tokenHash, env, ctx);
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
      const user = await userOfToken(given, tokenHash, env.DB, ctx);
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
}

/** @internal Tests move the token cache's clock instead of sleeping. */
export function setTokenClock(now: () => number): void {
  tokenCache.setClock(now);
}

async function userOfToken(given: string, tokenHash: string, database: D1Database, ctx: { waitUntil(promise: Promise<unknown>): void }) {
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
  const user: UserPrincipal = {
    kind: "user",
    id: owner.userId,
    teamId: owner.teamId,
    role: owner.role,
    email: owner.email,
    tokenId: owner.tokenId,
    secret: await ownerSecretOf(owner.tokenId, given, owner.personalKeyWrap),
    personalKeyId: owner.personalKeyId,
  };
  return user;
}

function bearerToken(request: Request): string | undefined {
  const match = (request.headers.get("authorization") ?? "").match(/^Bearer\s+(.+)$/i);
  const token = match?.[1]?.trim();
  return token ? token : undefined;
}

/** Constant-time comparison of digests, so neither length nor content leaks through timing. */
async function sameSecret(given: string, expected: string | undefined): Promise<boolean> {
  if (!expected) return false;
  const enc = new TextEncoder();
  const [a, b] = await Promise.all([
    crypto.subtle.digest("SHA-256", enc.encode(given)),
    crypto.subtle.digest("SHA-256", enc.encode(expected)),
  ]);
  return crypto.subtle.timingSafeEqual(a, b);
}
