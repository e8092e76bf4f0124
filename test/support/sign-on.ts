// Sign-on in tests (docs/hosting.md#single-sign-on): the worker with an identity provider
// configured (the real oidc-provider, the hand-made stand-in, or Cloudflare Access signed by the
// stand-in's key), called as a browser would: each request through the real worker, cookies kept
// per host, redirects followed by hand so each hop can be looked at.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { importJWK, type JWK, SignJWT } from "jose";
import { inject } from "vitest";
import worker from "../../src/worker.ts";
import { BASE } from "./cursor-client.ts";
import { IDP_CLIENT, STAND_IN_CLIENT } from "./sign-on-clients.ts";

/** Test values of the two OIDC clients (test/support/oidc-idp.ts, idp-stand-in.ts) and the Access app. */
const IDP = { OIDC_CLIENT_ID: IDP_CLIENT.id, OIDC_CLIENT_SECRET: IDP_CLIENT.secret };
const STAND_IN = { OIDC_CLIENT_ID: STAND_IN_CLIENT.id, OIDC_CLIENT_SECRET: STAND_IN_CLIENT.secret };
const ACCESS_DOMAIN = "byok-test.cloudflareaccess.com";
export const ACCESS_AUD = "aud-tag-of-the-byok-edge-application";
const HOPS_MAX = 12;

export type SignOnKind = "oidc" | "stand-in" | "access";

export function signOnEnv(kind: SignOnKind): Record<string, string> {
  if (kind === "oidc") return { OIDC_ISSUER: inject("oidcIssuer"), ...IDP, OIDC_PROVIDER_NAME: "Test IdP" };
  if (kind === "stand-in") return { OIDC_ISSUER: inject("standInIssuer"), ...STAND_IN };
  return { ACCESS_TEAM_DOMAIN: ACCESS_DOMAIN, ACCESS_AUD, ACCESS_CERTS_URL: inject("accessCertsUrl") };
}

/** One request through the real worker with `extra` bindings, waiting for its deferred work. */
export async function callWorker(request: Request, extra: Record<string, string>): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, { ...env, ...extra } as typeof env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** A browser's cookies, by host; every cookie of a host is sent to it (the paths here do not overlap in a way that matters). */
class CookieJar {
  readonly #byHost = new Map<string, Map<string, string>>();

  take(url: string, res: Response): void {
    const host = new URL(url).host;
    const jar = this.#byHost.get(host) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    this.#byHost.set(host, jar);
  }

  header(url: string): string {
    return [...(this.#byHost.get(new URL(url).host) ?? new Map())].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get(url: string, name: string): string | undefined {
    return this.#byHost.get(new URL(url).host)?.get(name);
  }

  set(url: string, name: string, value: string): void {
    const host = new URL(url).host;
    this.#byHost.set(host, new Map([...(this.#byHost.get(host) ?? []), [name, value]]));
  }
}

/** A browser: requests to the deployment go through the worker with the sign-on bindings, others over the network. */
export class Browser {
  readonly jar = new CookieJar();

  constructor(readonly bindings: Record<string, string>) {}

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(url);
    if (cookie) headers.set("cookie", cookie);
    const req = new Request(url, { ...init, headers, redirect: "manual" });
    const res = url.startsWith(BASE) ? await callWorker(req, this.bindings) : await fetch(req, { signal: AbortSignal.timeout(10_000) });
    this.jar.take(url, res);
    return res;
  }

  /** Follows redirects from `url` until a response that is not one, or one back to the deployment that `stop` wants. */
  async follow(url: string, stop: (url: string) => boolean = () => false): Promise<{ url: string; res: Response }> {
    let current = url;
    for (let hop = 0; hop < HOPS_MAX; hop++) {
      const res = await this.request(current);
      const location = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || !location) return { url: current, res };
      await res.body?.cancel();
      current = new URL(location, current).toString();
      if (stop(current)) return { url: current, res };
    }
    throw new Error(`more than ${HOPS_MAX} redirects from ${url}`);
  }

  /** Signs in through the identity provider as `hint` (an email, or "<flaw>:<email>" for the stand-in); the callback's answer. */
  async signIn(hint: string, returnTo = "/"): Promise<Response> {
    const login = `${BASE}/auth/oidc/login?login_hint=${encodeURIComponent(hint)}&return_to=${encodeURIComponent(returnTo)}`;
    const callback = await this.follow(login, (u) => u.startsWith(`${BASE}/auth/oidc/callback`));
    if (!callback.url.startsWith(`${BASE}/auth/oidc/callback`)) {
      throw new Error(`the sign-in ended at ${callback.url} with ${callback.res.status}: ${await callback.res.text()}`);
    }
    return this.request(callback.url);
  }

  session(): string | undefined {
    return this.jar.get(BASE, "__Host-byok_session");
  }

  /** An admin API call as this browser: its cookies, and Origin as the dashboard's own pages send it. */
  async api<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await this.request(`${BASE}${path}`, {
      method,
      headers: { origin: BASE, ...(body !== undefined && { "content-type": "application/json" }), ...headers },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }
}

/** A Cloudflare Access assertion signed by the stand-in team's key, with claims the test may override. */
export async function accessAssertion(email: string, claims: Record<string, unknown> = {}, alg = "RS256"): Promise<string> {
  const jwk = JSON.parse(inject("accessPrivateJwk")) as JWK;
  const now = Math.floor(Date.now() / 1000);
  const payload = {
    email,
    type: "app",
    iat: now,
    nbf: now,
    exp: now + 600,
    iss: `https://${ACCESS_DOMAIN}`,
    aud: [ACCESS_AUD],
    sub: email,
    ...claims,
  };
  if (alg === "none") return `${b64url({ alg: "none", typ: "JWT" })}.${b64url(payload)}.`;
  if (alg === "HS256") {
    const secret = new TextEncoder().encode("a shared secret an attacker chose, 32 bytes at least");
    return new SignJWT(payload).setProtectedHeader({ alg: "HS256", kid: "stand-in-access" }).sign(secret);
  }
  return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: "stand-in-access" }).sign(await importJWK(jwk, "RS256"));
}

function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
