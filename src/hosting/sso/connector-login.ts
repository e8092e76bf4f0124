// The connector's browser login (docs/hosting.md#the-connectors-browser-login), shaped like
// OAuth's loopback flow for native apps with PKCE (a redirect to an IP literal on this machine,
// at a port the connector chose at random): the connector opens
// /auth/connector/start with its loopback redirect, a state and a code challenge; the person,
// signed in (sign-on, else the OIDC login first), confirms; the deployment issues them a token
// there and then (so it holds their personal key when their session does), keeps it sealed under
// a key derived from a one-time code, and redirects the browser to the loopback address with that
// code. The connector trades code and verifier for the token, once, within 2 minutes.
import type { Context } from "hono";
import { html } from "hono/html";
import { calculatePKCECodeChallenge } from "oauth4webapi";
import { sha256Hex, toBase64Url } from "../../core/bytes.ts";
import { AppError, Code } from "../../core/errors.ts";
import type { AdminEnv } from "../admin/admin-context.ts";
import { adminErrorResponse } from "../admin/admin-errors.ts";
import { issueTokenFor, tokenExpiry } from "../admin/token-routes.ts";
import { authenticate, forgetCachedToken } from "../auth/principal.ts";
import { importAesKey, keyIdOf, open, parseEnvelope, seal } from "../keys/sealed-envelope.ts";
import { d1 } from "../store/db.ts";
import { claimGrantToken, type ConnectorGrantRow, insertGrant, takeGrant } from "../store/sign-on-rows.ts";
import { revokeToken } from "../store/token-rows.ts";
import { activeUser } from "../store/user-rows.ts";
import { limitUnauthenticated } from "./oidc-routes.ts";
import { errorPage, page } from "./pages.ts";
import { signInEntry, signInRequest } from "./sign-in.ts";
import { oidcConfig } from "./sso-config.ts";

const GRANT_TTL_MS = 2 * 60_000;
const GRANT_INFO = new TextEncoder().encode("byok-edge connector grant v1");

/** What the connector asks with, checked the same at start, at approval and (redirect) at the exchange. */
interface LoginRequest {
  redirectUri: string;
  state: string;
  codeChallenge: string;
  name: string;
}

/** GET /auth/connector/start: the confirmation page, or the sign-in first. */
export async function connectorStart(c: Context<AdminEnv>): Promise<Response> {
  try {
    const url = new URL(c.req.url);
    const asked = loginRequestOf(url.searchParams);
    const principal = await signedInOrUndefined(c);
    if (!principal) {
      if (!oidcConfig(c.env)) {
        throw new AppError(
          "unauthenticated",
          "sign in to this deployment first (it has no OIDC sign-in configured); or give the connector a token with --token",
        );
      }
      const login = new URL("/auth/oidc/login", url.origin);
      login.searchParams.set("return_to", `${url.pathname}${url.search}`);
      return Response.redirect(login.toString(), 302);
    }
    const body = html`<p>The connector on this computer (<strong>${asked.name}</strong>) asks for a Cursor token for
<strong>${principal.email}</strong>. Allow it only if you started <code>npm run connect -- --login</code> just now.</p>
<form method="post" action="/auth/connector/approve">
<input type="hidden" name="redirect_uri" value="${asked.redirectUri}">
<input type="hidden" name="state" value="${asked.state}">
<input type="hidden" name="code_challenge" value="${asked.codeChallenge}">
<input type="hidden" name="code_challenge_method" value="S256">
<input type="hidden" name="name" value="${asked.name}">
<button type="submit">Allow</button><a href="/">Cancel</a>
</form>`;
    return page(200, "Sign the connector in", body, true);
  } catch (err) {
    return errorPage(err);
  }
}

/** POST /auth/connector/approve (the confirmation's form): issues the token and hands the code to the loopback redirect. */
export async function connectorApprove(c: Context<AdminEnv>): Promise<Response> {
  try {
    const asked = loginRequestOf(new URLSearchParams(await c.req.text()));
    const principal = await signedInOrUndefined(c);
    if (!principal) throw new AppError("unauthenticated", "your sign-in has ended; start the connector's login again");
    const db = d1(c.env.DB);
    const user = await activeUser(db, principal.id);
    if (!user) throw new AppError("unauthenticated", "your account was removed");
    c.set("principal", principal);
    const now = Date.now();
    // Until the connector has it, the token lives no longer than its grant (claimGrantToken gives it its own lifetime).
    const finalExpiry = await tokenExpiry(db, user.teamId, null, now);
    const { row, token } = await issueTokenFor(c, user, asked.name, now + GRANT_TTL_MS, now, { via: "connector" });
    const code = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    const codeHash = await sha256Hex(code);
    const sealedToken = await sealToken(code, [user.id, row.id], token);
    const from = signInRequest(c.req.raw, principal.via === "access" ? "access" : "oidc");
    await insertGrant(
      db,
      {
        codeHash,
        userId: user.id,
        tokenId: row.id,
        sealedToken,
        codeChallenge: asked.codeChallenge,
        redirectUri: asked.redirectUri,
        tokenExpiresAtMs: finalExpiry,
        createdAtMs: now,
      },
      now - GRANT_TTL_MS,
      [
        {
          ...signInEntry(from, now, user),
          action: "connector.login",
          target: { kind: "token", id: row.id, name: row.name, userId: user.id },
        },
      ],
    );
    const back = new URL(asked.redirectUri);
    back.searchParams.set("code", code);
    back.searchParams.set("state", asked.state);
    return new Response(null, { status: 303, headers: { location: back.toString(), "cache-control": "no-store" } });
  } catch (err) {
    return errorPage(err);
  }
}

/** POST /auth/connector/token {code, code_verifier, redirect_uri}: the token, once. */
export async function connectorToken(c: Context<AdminEnv>): Promise<Response> {
  try {
    await limitUnauthenticated(c);
    const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const code = typeof body?.code === "string" ? body.code : "";
    const verifier = typeof body?.code_verifier === "string" ? body.code_verifier : "";
    const redirectUri = typeof body?.redirect_uri === "string" ? body.redirect_uri : "";
    if (!code || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !redirectUri) {
      throw new AppError("invalid_argument", "the body must be {code, code_verifier (43-128 characters), redirect_uri}");
    }
    const db = d1(c.env.DB);
    const grant = await takeGrant(db, await sha256Hex(code));
    if (!grant) throw refused();
    const token = await openToken(code, [grant.userId, grant.tokenId], grant.sealedToken);
    const fits = Date.now() - grant.createdAtMs <= GRANT_TTL_MS && grant.redirectUri === redirectUri;
    if (!token || !fits || (await calculatePKCECodeChallenge(verifier)) !== grant.codeChallenge) {
      // The grant is used up: its token, which nobody received, goes with it.
      await revokeUnclaimed(db, grant, c.req.raw);
      throw refused();
    }
    if (!(await claimGrantToken(db, grant))) throw refused();
    forgetCachedToken(grant.tokenId);
    return c.json({ token, token_id: grant.tokenId }, 200, { "cache-control": "no-store" });
  } catch (err) {
    return adminErrorResponse(err);
  }
}

function refused(): AppError {
  return new AppError("unauthenticated", "the code is unknown, expired, already used, or not this connector's; log in again");
}

/** Revokes the token of a grant whose exchange was refused, recorded as the sign-on's doing. */
async function revokeUnclaimed(db: ReturnType<typeof d1>, grant: ConnectorGrantRow, request: Request): Promise<void> {
  const now = Date.now();
  const from = signInRequest(request, "oidc");
  await revokeToken(db, { id: grant.tokenId, userId: grant.userId }, now, [
    {
      atMs: now,
      actor: { kind: "sso", id: grant.userId, email: null },
      action: "token.revoke",
      target: { kind: "token", id: grant.tokenId, userId: grant.userId },
      teamId: null,
      outcome: "ok",
      ip: from.ip,
      userAgent: from.userAgent,
      details: { reason: "the connector's code exchange was refused" },
    },
  ]);
  forgetCachedToken(grant.tokenId);
}

/** The connector's request, or invalid_argument; its redirect must be a loopback address (never another host). */
function loginRequestOf(params: URLSearchParams): LoginRequest {
  const redirectUri = params.get("redirect_uri") ?? "";
  let redirect: URL;
  try {
    redirect = new URL(redirectUri);
  } catch {
    throw new AppError("invalid_argument", "redirect_uri is not a URL");
  }
  const loopback = ["127.0.0.1", "localhost"].includes(redirect.hostname);
  if (redirect.protocol !== "http:" || !loopback || !redirect.port || redirect.username || redirect.password || redirect.hash) {
    throw new AppError(
      "invalid_argument",
      "redirect_uri must be http://127.0.0.1:<port>/… (the connector on this computer), never another address",
    );
  }
  const state = params.get("state") ?? "";
  const codeChallenge = params.get("code_challenge") ?? "";
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(state)) throw new AppError("invalid_argument", "state must be 16-128 URL-safe characters");
  if (params.get("code_challenge_method") !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
    throw new AppError("invalid_argument", "code_challenge must be a PKCE S256 challenge (code_challenge_method=S256)");
  }
  const name = (params.get("name") ?? "").trim().slice(0, 100) || "connector";
  return { redirectUri, state, codeChallenge, name };
}

/** The signed-in person of this browser (session or Access), or undefined when nobody is. */
async function signedInOrUndefined(c: Context<AdminEnv>) {
  try {
    const principal = await authenticate(c.req.raw, c.env, c.executionCtx, { signOn: true });
    return principal.kind === "user" && principal.via !== "token" ? principal : undefined;
  } catch (err) {
    if (err instanceof AppError && err.code === Code.Unauthenticated) return undefined;
    throw err;
  }
}

async function grantKey(code: string): Promise<{ key: CryptoKey; keyId: Uint8Array }> {
  const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(code), "HKDF", false, ["deriveBits"]);
  const raw = new Uint8Array(
    await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: GRANT_INFO }, base, 256),
  );
  try {
    return { key: await importAesKey(raw), keyId: await keyIdOf(raw) };
  } finally {
    raw.fill(0);
  }
}

async function sealToken(code: string, context: string[], token: string): Promise<string> {
  const { key, keyId } = await grantKey(code);
  return seal(key, keyId, ["connector-grant", ...context], new TextEncoder().encode(token));
}

async function openToken(code: string, context: string[], sealed: string): Promise<string | undefined> {
  const envelope = parseEnvelope(sealed);
  if (typeof envelope === "string") return undefined;
  const { key } = await grantKey(code);
  const plain = await open(key, envelope, ["connector-grant", ...context]);
  return plain ? new TextDecoder().decode(plain) : undefined;
}
