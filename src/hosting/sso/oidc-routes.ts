// The browser's OIDC sign-in (docs/hosting.md#oidc): /auth/oidc/login sends it to the identity
// provider with a new attempt (state, nonce, PKCE verifier kept in D1 under the state's hash for
// 10 minutes, the state also in a cookie of this browser); /auth/oidc/callback takes the attempt
// once, checks the provider's answer, signs the email in (sign-in.ts) and opens a session.
import type { Context } from "hono";
import { sha256Hex } from "../../core/bytes.ts";
import { AppError, Code, RetryLater } from "../../core/errors.ts";
import { clientAddress } from "../auth/auth-attempts.ts";
import type { AdminEnv } from "../admin/admin-context.ts";
import { d1 } from "../store/db.ts";
import { insertAttempt, takeAttempt } from "../store/sign-on-rows.ts";
import { finishOidc, startOidc } from "./oidc.ts";
import { errorPage } from "./pages.ts";
import { cookieOf, STATE_COOKIE, setCookie } from "./cookies.ts";
import { openSession } from "./session.ts";
import { recordSignInFailure, signInEntry, signInRequest, userForEmail } from "./sign-in.ts";
import { requireOidc } from "./sso-config.ts";

const CALLBACK_PATH = "/auth/oidc/callback";
const ATTEMPT_TTL_MS = 10 * 60_000;

/** GET /auth/oidc/login?return_to=/path&login_hint=email */
export async function oidcLogin(c: Context<AdminEnv>): Promise<Response> {
  try {
    const config = requireOidc(c.env);
    await limitUnauthenticated(c);
    const url = new URL(c.req.url);
    const returnTo = safeReturnTo(url.searchParams.get("return_to"));
    const loginHint = url.searchParams.get("login_hint")?.slice(0, 320) || undefined;
    const { url: authorize, attempt } = await startOidc(config, callbackUrl(url), loginHint);
    const now = Date.now();
    await insertAttempt(
      d1(c.env.DB),
      { stateHash: await sha256Hex(attempt.state), nonce: attempt.nonce, codeVerifier: attempt.codeVerifier, returnTo, createdAtMs: now },
      now - ATTEMPT_TTL_MS,
    );
    const headers = new Headers({ location: authorize.toString(), "cache-control": "no-store" });
    headers.append("set-cookie", setCookie(STATE_COOKIE, attempt.state, ATTEMPT_TTL_MS / 1000));
    return new Response(null, { status: 302, headers });
  } catch (err) {
    return errorPage(err);
  }
}

/** GET /auth/oidc/callback?code&state (or ?error) from the identity provider. */
export async function oidcCallback(c: Context<AdminEnv>): Promise<Response> {
  const db = d1(c.env.DB);
  const from = signInRequest(c.req.raw, "oidc");
  const now = Date.now();
  try {
    const config = requireOidc(c.env);
    const url = new URL(c.req.url);
    const state = url.searchParams.get("state") ?? "";
    const attempt = state ? await takeAttempt(db, await sha256Hex(state)) : undefined;
    if (!attempt || now - attempt.createdAtMs > ATTEMPT_TTL_MS) {
      throw new AppError("unauthenticated", "this sign-in is unknown, expired or already used (a wrong state); start again");
    }
    // The attempt was started by this browser: another one cannot finish it with a code it was handed.
    if (cookieOf(c.req.raw, STATE_COOKIE) !== state) {
      throw new AppError(
        "unauthenticated",
        "this sign-in was started in another browser, or a newer one was started in this one (its state cookie does not match); start again",
      );
    }
    const identity = await finishOidc(config, url, callbackUrl(url), { state, nonce: attempt.nonce, codeVerifier: attempt.codeVerifier });
    const user = await userForEmail(db, identity.email, identity.emailVerified, from, now);
    const cookie = await openSession(db, user, "oidc", now, signInEntry(from, now, user));
    const headers = new Headers({ location: attempt.returnTo, "cache-control": "no-store" });
    headers.append("set-cookie", cookie);
    headers.append("set-cookie", setCookie(STATE_COOKIE, "", 0));
    return new Response(null, { status: 302, headers });
  } catch (err) {
    // A refusal of who the person is (permission_denied) was recorded where it was decided.
    if (err instanceof AppError && err.code === Code.Unauthenticated) await recordSignInFailure(db, from, now, err.rawMessage);
    return errorPage(err);
  }
}

/**
 * Sign-on routes anyone may call write to D1 (an attempt, a grant taken): they count against the
 * same per-address limit as failed authentications (docs/hosting.md#rate-limits).
 */
export async function limitUnauthenticated(c: Context<AdminEnv>): Promise<void> {
  const { success } = await c.env.AUTH_ATTEMPTS.limit({ key: clientAddress(c.req.raw) });
  if (!success) throw new RetryLater("too many sign-in attempts from this address; retry in a minute", 60);
}

/** The redirect URI registered with the provider: this deployment's origin and the callback path. */
function callbackUrl(request: URL): string {
  return `${request.origin}${CALLBACK_PATH}`;
}

/**
 * A path of this deployment only; else the dashboard. Resolved as a browser would resolve it, so
 * no `//host`, backslash or control-character spelling can name another origin.
 */
function safeReturnTo(value: string | null): string {
  const base = "https://deployment.invalid";
  const unsafe = [...(value ?? "")].some((ch) => ch <= " " || ch === "\u007f" || ch === "\\");
  if (!value?.startsWith("/") || value.length > 2048 || unsafe) return "/";
  const resolved = new URL(value, base);
  return resolved.origin === base ? `${resolved.pathname}${resolved.search}${resolved.hash}` : "/";
}
