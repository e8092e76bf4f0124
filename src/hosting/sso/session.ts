// The dashboard's sign-in session (docs/hosting.md#sessions): a random secret in an
// `HttpOnly; Secure; SameSite=Lax` cookie (cookies.ts), stored like a token (its hash in `tokens`, kind
// "session", 12 h at most), so it is checked, cached, revoked and ended with its user exactly as a
// token is, and may hold a wrap of its user's personal key. It authenticates the admin API and the
// sign-on routes only, never a Cursor call.
import { newUserToken, userTokenHash } from "../auth/user-token.ts";
import { cookieOf, SESSION_COOKIE, setCookie } from "./cookies.ts";
import type { AuditEntry } from "../store/audit-rows.ts";
import type { D1Db } from "../store/db.ts";
import { deleteEndedSessions, issueToken } from "../store/token-rows.ts";
import type { UserRow } from "../store/user-rows.ts";

const SESSION_MAX_AGE_S = 12 * 60 * 60;

/** The session secret the request's cookie carries, if any. */
export function sessionCookieOf(request: Request): string | undefined {
  return cookieOf(request, SESSION_COOKIE);
}

/** Opens a session for the user; its Set-Cookie value. The sign-in's entry rides in the same batch. */
export async function openSession(db: D1Db, user: UserRow, via: string, nowMs: number, signIn: AuditEntry): Promise<string> {
  const secret = newUserToken();
  // Each sign-in clears the sessions that ended more than a day ago, so the table does not grow without a cron.
  await deleteEndedSessions(db, nowMs - 24 * 60 * 60 * 1000);
  await issueToken(
    db,
    {
      userId: user.id,
      kind: "session",
      name: `sign-in (${via})`,
      tokenHash: await userTokenHash(secret),
      expiresAtMs: nowMs + SESSION_MAX_AGE_S * 1000,
      issuedBy: null,
    },
    nowMs,
    (session) => [{ ...signIn, details: { ...signIn.details, session_id: session.id } }],
  );
  return sessionCookie(secret, SESSION_MAX_AGE_S);
}

/** The Set-Cookie of a session secret; an empty one with Max-Age=0 ends it in the browser. */
export function sessionCookie(secret: string, maxAgeS: number): string {
  return setCookie(SESSION_COOKIE, secret, maxAgeS);
}

/**
 * A request authenticated by a cookie (or by Access) that changes something must come from the
 * deployment's own pages: SameSite=Lax keeps other sites' forms from sending the cookie, and this
 * keeps out a sibling subdomain's script too.
 */
export function isSameOrigin(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return true;
  const origin = request.headers.get("origin");
  return origin !== null && origin === new URL(request.url).origin;
}
