// The browser's OIDC sign-in (docs/hosting.md#oidc): /auth/oidc/login sends it to the identity
// provider with a new attempt (state, nonce, PKCE verifier kept in D1 under the state's hash for
// 10 minutes, the state also in a cookie of this browser); /auth/oidc/callback takes the attempt
// once, checks the provider's answer, signs the email in (sign-in.ts) and opens a session.
import type { Context } from "hono";
import { parse } from "hono/utils/cookie";
import { sha256Hex } from "../../core/bytes.ts";
import { AppError, Code } from "../../core/errors.ts";
import type { AdminEnv } from "../admin/admin-context.ts";
import { d1 } from "../store/db.ts";
import { insertAttempt, takeAttempt } from "../store/sign-on-rows.ts";
import { finishOidc, startOidc } from "./oidc.ts";
import { errorPage } from "./pages.ts";
import { openSession } from "./session.ts";
import { recordSignInFailure, signInEntry, signInRequest, userForEmail } from "./sign-in.ts";
import { requireOidc } from "./sso-config.ts";

const CALLBACK_PATH = "/auth/oidc/callback";
const ATTEMPT_TTL_MS = 10 * 60_000;
const STATE_COOKIE = "byok_oidc_state";

/** GET /auth/oidc/login?return_to=/path&login_hint=email */
export async function oidcLogin(c: Context<AdminEnv>): Promise<Response> {
  try {
    const config = requireOidc(c.env);
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
    headers.append("set-cookie", `${STATE_COOKIE}=${attempt.state}; Path=/auth/oidc; Max-Age=600; HttpOnly; Secure; SameSite=Lax`);
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
    if (stateCookieOf(c.req.header("cookie")) !== state) {
      throw new AppError("unauthenticated", "this sign-in was started in another browser (its state cookie is missing); start again");
    }
    const identity = await finishOidc(config, url, callbackUrl(url), { state, nonce: attempt.nonce, codeVerifier: attempt.codeVerifier });
    const user = await userForEmail(db, identity.email, identity.emailVerified, from, now);
    const cookie = await openSession(db, user, "oidc", now, signInEntry(from, now, user));
    const headers = new Headers({ location: attempt.returnTo, "cache-control": "no-store" });
    headers.append("set-cookie", cookie);
    headers.append("set-cookie", `${STATE_COOKIE}=; Path=/auth/oidc; Max-Age=0; HttpOnly; Secure; SameSite=Lax`);
    return new Response(null, { status: 302, headers });
  } catch (err) {
    // A refusal of who the person is (permission_denied) was recorded where it was decided.
    if (err instanceof AppError && err.code === Code.Unauthenticated) await recordSignInFailure(db, from, now, err.rawMessage);
    return errorPage(err);
  }
}

/** The redirect URI registered with the provider: this deployment's origin and the callback path. */
function callbackUrl(request: URL): string {
  return `${request.origin}${CALLBACK_PATH}`;
}

/** A path of this deployment only (never `//host`, a scheme, or a backslash trick); else the dashboard. */
function safeReturnTo(value: string | null): string {
  if (!value?.startsWith("/") || value.startsWith("//") || value.includes("\\") || value.length > 2048) return "/";
  return value;
}

function stateCookieOf(header: string | undefined): string | undefined {
  return header ? parse(header, STATE_COOKIE)[STATE_COOKIE] : undefined;
}
