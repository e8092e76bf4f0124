// Single sign-on (docs/hosting.md#single-sign-on) against real identity providers on 127.0.0.1:
// oidc-provider for OIDC (test/support/oidc-idp.ts), a hand-made provider for the ID tokens a real
// one never sends, and a Cloudflare Access team's certs (test/support/idp-stand-in.ts). Each test
// lets people of a domain of its own in, so the runner's other files share nothing with it.
import { describe, expect, it } from "vitest";
import { api, expectStatus, OPERATOR_TOKEN, teamWithPeople, type User } from "../../support/admin-client.ts";
import { BASE } from "../../support/cursor-client.ts";
import { ACCESS_AUD, accessAssertion, Browser, callWorker, signOnEnv } from "../../support/sign-on.ts";

const HOUR_S = 3600;

/** An audit entry, as far as these tests read it. */
interface Entry {
  outcome: string;
  actor: { kind: string; id: string; email: string | null };
  details: Record<string, unknown>;
}

interface Me {
  user: { id: string; email: string; role: string; team_id: string } | null;
  signed_in_via: string | null;
  session: { id: string } | null;
}

/** A team whose people of a fresh domain sign in, with its admin's token. */
async function ssoTeam(settings: Record<string, unknown> = {}) {
  const people = await teamWithPeople();
  const domain = `d${crypto.randomUUID().slice(0, 8)}.example`;
  const body = { sso_domains: [domain], sso_default_role: "member", ...settings };
  // The operator claims the domain (a team's admin may not: it is claimed for the whole deployment).
  const team = expectStatus(await api("PATCH", `/api/v1/teams/${people.team.id}`, { body }), 200);
  return { ...people, domain, teamJson: team, email: (name: string) => `${name}@${domain}` };
}

/** The team's entries of an action that sign-on wrote (actor "sso"); the operator's setup is left out. */
async function auditOf(teamId: string, action: string) {
  const res = expectStatus(await api<{ entries: Entry[] }>("GET", `/api/v1/audit?team_id=${teamId}&action=${action}`), 200);
  return res.entries.filter((e) => e.actor.kind === "sso" || action === "sso.sign_out");
}

describe("a deployment with no sign-on configured", () => {
  it("offers no provider, and neither a session cookie nor an Access assertion signs anyone in", async () => {
    const providers = await callWorker(new Request(`${BASE}/auth/providers`), {});
    expect(await providers.json()).toEqual({ oidc: null, access: false });
    const me = await callWorker(
      new Request(`${BASE}/api/v1/me`, {
        headers: { cookie: "__Host-byok_session=byok_not-a-session", "cf-access-jwt-assertion": "x.y.z" },
      }),
      {},
    );
    expect(me.status).toBe(401);
    const login = await callWorker(new Request(`${BASE}/auth/oidc/login`), {});
    expect(login.status).toBe(501);
  });
});

describe("OIDC sign-in", () => {
  const bindings = signOnEnv("oidc");

  it("names the provider for the dashboard's button", async () => {
    const res = await callWorker(new Request(`${BASE}/auth/providers`), bindings);
    expect(await res.json()).toEqual({ oidc: { name: "Test IdP", login_url: "/auth/oidc/login" }, access: false });
  });

  it("creates a person of a listed domain on first sign-in, with the team's default role, in a 12 h HttpOnly Secure SameSite=Lax session", async () => {
    const { team, email } = await ssoTeam();
    const browser = new Browser(bindings);
    const res = await browser.signIn(email("ada"), "/#/tokens");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/#/tokens");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-byok_session="));
    expect(cookie).toMatch(/; Path=\/; Max-Age=43200; HttpOnly; Secure; SameSite=Lax$/);
    const me = await browser.api<Me>("GET", "/api/v1/me");
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: email("ada"), role: "member", team_id: team.id });
    expect(me.body.signed_in_via).toBe("session");

    const added = await auditOf(team.id, "user.add");
    expect(added).toEqual([expect.objectContaining({ actor: expect.objectContaining({ kind: "sso" }), outcome: "ok" })]);
    const signIns = await auditOf(team.id, "sso.sign_in");
    expect(signIns).toHaveLength(1);
    expect(signIns[0]).toMatchObject({ outcome: "ok", actor: { kind: "sso", id: me.body.user!.id }, details: { via: "oidc" } });

    // A second sign-in is the same person, not a new one.
    const again = new Browser(bindings);
    expect((await again.signIn(email("ada"))).status).toBe(302);
    expect((await again.api<Me>("GET", "/api/v1/me")).body.user!.id).toBe(me.body.user!.id);
    expect(await auditOf(team.id, "user.add")).toHaveLength(1);
  });

  it("signs in a user an admin added before, whatever the domain's default role", async () => {
    const { team, admin, email } = await ssoTeam({ sso_default_role: "member" });
    const added = expectStatus(
      await api<User>("POST", `/api/v1/teams/${team.id}/users`, { token: admin.token, body: { email: email("grace"), role: "admin" } }),
      201,
    );
    const browser = new Browser(bindings);
    await browser.signIn(email("grace"));
    expect((await browser.api<Me>("GET", "/api/v1/me")).body.user).toMatchObject({ id: added.id, role: "admin" });
  });

  it("lets a signed-in person issue their own Cursor token within the team's max_token_days, and the token runs Cursor calls", async () => {
    const { email } = await ssoTeam({ max_token_days: 30 });
    const browser = new Browser(bindings);
    await browser.signIn(email("lin"));
    const me = (await browser.api<Me>("GET", "/api/v1/me")).body;
    const tooLong = new Date(Date.now() + 60 * 24 * HOUR_S * 1000).toISOString();
    const refused = await browser.api<{ error: { code: string; message: string } }>("POST", `/api/v1/users/${me.user!.id}/tokens`, {
      name: "laptop",
      expires_at: tooLong,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("30 days");
    const issued = await browser.api<{ token: string; expires_at: string }>("POST", `/api/v1/users/${me.user!.id}/tokens`, {
      name: "laptop",
    });
    expect(issued.status).toBe(201);
    const days = (Date.parse(issued.body.expires_at) - Date.now()) / (24 * HOUR_S * 1000);
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const tokens = expectStatus(await api<{ tokens: { name: string }[] }>("GET", `/api/v1/users/${me.user!.id}/tokens`), 200);
    expect(tokens.tokens.map((t) => t.name)).toEqual(["laptop"]); // the session is not a token
    const models = await callWorker(
      new Request(`${BASE}/aiserver.v1.AiService/AvailableModels`, {
        method: "POST",
        headers: { authorization: `Bearer ${issued.body.token}`, "content-type": "application/proto" },
        body: new Uint8Array(0),
      }),
      bindings,
    );
    expect(models.status).toBe(200);
  });

  it("does not take a session cookie for a Cursor call, nor a change without the deployment's own Origin", async () => {
    const { email } = await ssoTeam();
    const browser = new Browser(bindings);
    await browser.signIn(email("kay"));
    const cursor = await browser.request(`${BASE}/aiserver.v1.AiService/AvailableModels`, {
      method: "POST",
      headers: { "content-type": "application/proto" },
      body: new Uint8Array(0),
    });
    expect(cursor.status).toBe(401);
    const me = (await browser.api<Me>("GET", "/api/v1/me")).body;
    const crossSite = await browser.api("POST", `/api/v1/users/${me.user!.id}/tokens`, { name: "x" }, { origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
  });

  it("ends the session at logout: the cookie is cleared and refused from then on", async () => {
    const { team, email } = await ssoTeam();
    const browser = new Browser(bindings);
    await browser.signIn(email("eve"));
    const session = browser.session()!;
    const out = await browser.request(`${BASE}/api/v1/session/logout`, { method: "POST", headers: { origin: BASE } });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^__Host-byok_session=; Path=\/; Max-Age=0/);
    const replay = await callWorker(new Request(`${BASE}/api/v1/me`, { headers: { cookie: `__Host-byok_session=${session}` } }), bindings);
    expect(replay.status).toBe(401);
    expect(await auditOf(team.id, "sso.sign_out")).toHaveLength(1);
    // Logging out with the ended cookie still clears it (the page cannot: it is HttpOnly).
    const again = await callWorker(
      new Request(`${BASE}/api/v1/session/logout`, { method: "POST", headers: { origin: BASE, cookie: `__Host-byok_session=${session}` } }),
      bindings,
    );
    expect(again.status).toBe(204);
    expect(again.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  });

  it("refuses a forged session cookie, and a session presented as a bearer token", async () => {
    const { email } = await ssoTeam();
    const forged = await callWorker(
      new Request(`${BASE}/api/v1/me`, { headers: { cookie: "__Host-byok_session=byok_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" } }),
      bindings,
    );
    expect(forged.status).toBe(401);
    const browser = new Browser(bindings);
    await browser.signIn(email("sam"));
    const asBearer = await callWorker(
      new Request(`${BASE}/api/v1/me`, { headers: { authorization: `Bearer ${browser.session()}` } }),
      bindings,
    );
    expect(asBearer.status).toBe(401);
  });

  it("refuses an expired session", async () => {
    const { email } = await ssoTeam();
    const browser = new Browser(bindings);
    await browser.signIn(email("old"));
    const me = (await browser.api<Me>("GET", "/api/v1/me")).body;
    const { env } = await import("cloudflare:workers");
    await env.DB.prepare("UPDATE tokens SET expires_at_ms = ? WHERE id = ?")
      .bind(Date.now() - 1, me.session!.id)
      .run();
    // A fresh isolate's view: the token cache keeps a check at most 5 s, which this one would still be within.
    const { forgetCachedToken } = await import("../../../src/hosting/auth/principal.ts");
    forgetCachedToken(me.session!.id);
    expect((await browser.api("GET", "/api/v1/me")).status).toBe(401);
  });

  it("deletes sessions that ended over a day ago at the next sign-in", async () => {
    const { email } = await ssoTeam();
    const browser = new Browser(bindings);
    await browser.signIn(email("gone"));
    const me = (await browser.api<Me>("GET", "/api/v1/me")).body;
    const { env } = await import("cloudflare:workers");
    await env.DB.prepare("UPDATE tokens SET expires_at_ms = ? WHERE id = ?")
      .bind(Date.now() - 2 * 24 * HOUR_S * 1000, me.session!.id)
      .run();
    await new Browser(bindings).signIn(email("next"));
    const row = await env.DB.prepare("SELECT id FROM tokens WHERE id = ?").bind(me.session!.id).first();
    expect(row).toBeNull();
  });

  it("ends a removed user's session at once here, and refuses their next sign-in saying why", async () => {
    const { team, admin, email } = await ssoTeam();
    const browser = new Browser(bindings);
    await browser.signIn(email("ben"));
    const me = (await browser.api<Me>("GET", "/api/v1/me")).body;
    expect((await api("DELETE", `/api/v1/users/${me.user!.id}`, { token: admin.token })).status).toBe(204);
    expect((await browser.api("GET", "/api/v1/me")).status).toBe(401);
    const again = await new Browser(bindings).signIn(email("ben"));
    expect(again.status).toBe(403);
    expect(await again.text()).toContain(`was removed from team ${team.name}`);
  });

  it("refuses an email of no team's domain with a 403 that says why, and records it", async () => {
    const res = await new Browser(bindings).signIn("stranger@nowhere-listed.example");
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("no team of this deployment lets people of nowhere-listed.example sign in");
    const denied = expectStatus(await api<{ entries: Entry[] }>("GET", "/api/v1/audit?action=sso.sign_in&limit=50"), 200);
    expect(denied.entries.some((e) => e.outcome === "denied" && e.actor.email === "stranger@nowhere-listed.example")).toBe(true);
  });

  it("refuses an email the identity provider has not verified", async () => {
    const { email } = await ssoTeam();
    const res = await new Browser(bindings).signIn(email("unverified-zoe"));
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("has not verified the email");
  });

  it("refuses a callback with a wrong state, one replayed, and one from another browser", async () => {
    const { email } = await ssoTeam();
    const browser = new Browser(bindings);
    const login = `${BASE}/auth/oidc/login?login_hint=${encodeURIComponent(email("ray"))}`;
    const isCallback = (u: string) => u.startsWith(`${BASE}/auth/oidc/callback`);
    const { url } = await browser.follow(login, isCallback);
    const wrong = new URL(url);
    wrong.searchParams.set("state", "a-state-this-deployment-never-made");
    const wrongState = await browser.request(wrong.toString());
    expect(wrongState.status).toBe(401);
    expect(await wrongState.text()).toContain("wrong state");

    const other = new Browser(bindings);
    const elsewhere = await other.request(url);
    expect(elsewhere.status).toBe(401);
    expect(await elsewhere.text()).toContain("started in another browser");

    // The attempt was used by the other browser's try: this browser's own callback now finds nothing.
    const { url: second } = await browser.follow(login, isCallback);
    expect((await browser.request(second)).status).toBe(302);
    const replayed = await browser.request(second);
    expect(replayed.status).toBe(401);
  });

  it("refuses a return_to that leaves the deployment, however it is spelled", async () => {
    const { email } = await ssoTeam();
    for (const away of ["//evil.example/steal", "/\t/evil.example", "/\\evil.example", "https://evil.example/"]) {
      const res = await new Browser(bindings).signIn(email("ivy"), away);
      expect(res.headers.get("location"), away).toBe("/");
    }
    const res = await new Browser(bindings).signIn(email("ivy"), "/#/tokens?x=1");
    expect(res.headers.get("location")).toBe("/#/tokens?x=1");
  });
});

describe("ID tokens a real provider never sends", () => {
  const bindings = signOnEnv("stand-in");

  it("signs in with a good one (the stand-in itself works)", async () => {
    const { email } = await ssoTeam();
    expect((await new Browser(bindings).signIn(`none:${email("ok")}`)).status).toBe(302);
  });

  for (const [flaw, says] of [
    ["wrong-nonce", "nonce"],
    ["expired", "exp"],
    ["future", "issued in the future"],
    ["wrong-aud", "aud"],
    ["wrong-iss", "iss"],
  ] as const) {
    it(`refuses an ID token with ${flaw.replace("-", " ")}`, async () => {
      const { team, email } = await ssoTeam();
      const res = await new Browser(bindings).signIn(`${flaw}:${email("mal")}`);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain(says);
      expect(await auditOf(team.id, "user.add")).toEqual([]);
    });
  }
});

describe("Cloudflare Access", () => {
  const bindings = signOnEnv("access");

  async function me(assertion: string) {
    const res = await callWorker(new Request(`${BASE}/api/v1/me`, { headers: { "cf-access-jwt-assertion": assertion } }), bindings);
    return { status: res.status, body: (await res.json()) as Me & { error?: { message: string } } };
  }

  it("signs in the person a valid assertion names, created on first sight, as the admin API's caller", async () => {
    const { team, email } = await ssoTeam();
    const first = await me(await accessAssertion(email("ann")));
    expect(first.status).toBe(200);
    expect(first.body.user).toMatchObject({ email: email("ann"), team_id: team.id, role: "member" });
    expect(first.body.signed_in_via).toBe("access");
    expect(await auditOf(team.id, "user.add")).toHaveLength(1);
    expect((await auditOf(team.id, "sso.sign_in"))[0]).toMatchObject({ outcome: "ok", details: { via: "access" } });
  });

  for (const [what, make] of [
    ["alg none", (e: string) => accessAssertion(e, {}, "none")],
    ["HS256", (e: string) => accessAssertion(e, {}, "HS256")],
    ["a wrong audience", (e: string) => accessAssertion(e, { aud: ["another-application"] })],
    ["a wrong issuer", (e: string) => accessAssertion(e, { iss: "https://other-team.cloudflareaccess.com" })],
    ["an expiry past", (e: string) => accessAssertion(e, { exp: Math.floor(Date.now() / 1000) - 60 })],
    ["a not-before ahead", (e: string) => accessAssertion(e, { nbf: Math.floor(Date.now() / 1000) + 3600 })],
  ] as const) {
    it(`refuses an assertion with ${what} with 401`, async () => {
      const { team, email } = await ssoTeam();
      const res = await me(await make(email("mallory")));
      expect(res.status).toBe(401);
      expect(res.body.error?.message).toContain("Cloudflare Access assertion is not valid");
      expect(await auditOf(team.id, "user.add")).toEqual([]);
    });
  }

  it("refuses an email of no team's domain with 403", async () => {
    const res = await me(await accessAssertion("someone@unlisted-access.example"));
    expect(res.status).toBe(403);
    expect(res.body.error?.message).toContain("unlisted-access.example");
  });

  it("refuses a removed person at once here", async () => {
    const { admin, email } = await ssoTeam();
    const assertion = await accessAssertion(email("rex"));
    const signedIn = await me(assertion);
    expect((await api("DELETE", `/api/v1/users/${signedIn.body.user!.id}`, { token: admin.token })).status).toBe(204);
    expect((await me(assertion)).status).toBe(403);
  });

  it("keeps an assertion's audience list: any of ACCESS_AUD's tags is accepted", async () => {
    const { email } = await ssoTeam();
    const two = { ...bindings, ACCESS_AUD: `another-tag, ${ACCESS_AUD}` };
    const res = await callWorker(
      new Request(`${BASE}/api/v1/me`, { headers: { "cf-access-jwt-assertion": await accessAssertion(email("two")) } }),
      two,
    );
    expect(res.status).toBe(200);
  });
});

describe("team sign-on settings", () => {
  it("refuses a domain another team lists already, and members changing them", async () => {
    const { domain, member } = await ssoTeam();
    const other = await teamWithPeople();
    const taken = await api<{ error: { code: string } }>("PATCH", `/api/v1/teams/${other.team.id}`, {
      token: OPERATOR_TOKEN,
      body: { sso_domains: [domain.toUpperCase()] },
    });
    expect(taken.status).toBe(409);
    const byMember = await api("PATCH", `/api/v1/teams/${member.user.team_id}`, { token: member.token, body: { max_token_days: 1 } });
    expect(byMember.status).toBe(403);
    // A team's admin sets its default role and token lifetime, not which domains it claims.
    const byAdmin = await api("PATCH", `/api/v1/teams/${other.team.id}`, {
      token: other.admin.token,
      body: { sso_domains: ["gmail.com"] },
    });
    expect(byAdmin.status).toBe(403);
    const settings = await api("PATCH", `/api/v1/teams/${other.team.id}`, {
      token: other.admin.token,
      body: { max_token_days: 5, sso_default_role: "admin" },
    });
    expect(settings.status).toBe(200);
  });

  it("lists a team's domains, default role and token lifetime", async () => {
    const { teamJson, domain } = await ssoTeam({ max_token_days: 7, sso_default_role: "admin" });
    expect(teamJson).toMatchObject({ sso_domains: [domain], sso_default_role: "admin", max_token_days: 7 });
  });
});

describe("the connector's browser login", () => {
  const bindings = signOnEnv("oidc");
  const redirectUri = "http://127.0.0.1:53682/callback";

  async function pkce() {
    const verifier = `verifier-${crypto.randomUUID()}-${crypto.randomUUID()}`;
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
    const challenge = btoa(String.fromCharCode(...digest))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    return { verifier, challenge };
  }

  function startUrl(challenge: string, redirect = redirectUri, state = "state-of-the-connector-123") {
    const params = new URLSearchParams({
      redirect_uri: redirect,
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
      name: "connector on laptop",
    });
    return `${BASE}/auth/connector/start?${params}`;
  }

  async function exchange(body: Record<string, string>) {
    const res = await callWorker(
      new Request(`${BASE}/auth/connector/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
      bindings,
    );
    return { status: res.status, body: (await res.json()) as { token?: string; token_id?: string; error?: { message: string } } };
  }

  /** Signs in, confirms, and returns the code the loopback redirect carries. */
  async function approvedCode(browser: Browser, challenge: string): Promise<string> {
    const page = await browser.request(startUrl(challenge));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("asks for a Cursor token");
    const form = new URLSearchParams({
      redirect_uri: redirectUri,
      state: "state-of-the-connector-123",
      code_challenge: challenge,
      code_challenge_method: "S256",
      name: "connector on laptop",
    });
    const approved = await browser.request(`${BASE}/auth/connector/approve`, {
      method: "POST",
      headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(approved.status).toBe(303);
    const back = new URL(approved.headers.get("location")!);
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get("state")).toBe("state-of-the-connector-123");
    return back.searchParams.get("code")!;
  }

  it("sends a person who is not signed in to the sign-in first, and back to the confirmation after", async () => {
    const { challenge } = await pkce();
    const res = await new Browser(bindings).request(startUrl(challenge));
    expect(res.status).toBe(302);
    const login = new URL(res.headers.get("location")!);
    expect(login.pathname).toBe("/auth/oidc/login");
    expect(login.searchParams.get("return_to")).toBe(new URL(startUrl(challenge)).pathname + new URL(startUrl(challenge)).search);
  });

  it("hands a new token of the person to the connector once, for the verifier of its challenge", async () => {
    const { email } = await ssoTeam();
    const browser = new Browser(bindings);
    await browser.signIn(email("cli"));
    const { verifier, challenge } = await pkce();
    const code = await approvedCode(browser, challenge);
    const tokensBefore = await api<{ tokens: { id: string; revoked_at: string | null }[] }>(
      "GET",
      `/api/v1/users/${(await browser.api<Me>("GET", "/api/v1/me")).body.user!.id}/tokens`,
    );
    const wrongVerifier = await exchange({ code, code_verifier: `${verifier}-not`, redirect_uri: redirectUri });
    expect(wrongVerifier.status).toBe(401);
    // The token nobody received is revoked with its refused code.
    const meId = (await browser.api<Me>("GET", "/api/v1/me")).body.user!.id;
    const tokensAfter = expectStatus(
      await api<{ tokens: { id: string; revoked_at: string | null }[] }>("GET", `/api/v1/users/${meId}/tokens`),
      200,
    );
    expect(tokensBefore.body.tokens.filter((t) => t.revoked_at === null)).toHaveLength(1);
    expect(tokensAfter.tokens.filter((t) => t.revoked_at === null)).toHaveLength(0);
    // A refused exchange used the code up: the connector logs in again.
    expect((await exchange({ code, code_verifier: verifier, redirect_uri: redirectUri })).status).toBe(401);

    const second = await approvedCode(browser, challenge);
    // Until the connector has it, the token lives no longer than its code (2 minutes).
    const pending = expectStatus(
      await api<{ tokens: { id: string; expires_at: string | null; revoked_at: string | null }[] }>("GET", `/api/v1/users/${meId}/tokens`),
      200,
    );
    const waiting = pending.tokens.find((t) => t.revoked_at === null)!;
    expect(Date.parse(waiting.expires_at!) - Date.now()).toBeLessThanOrEqual(2 * 60_000);
    const ok = await exchange({ code: second, code_verifier: verifier, redirect_uri: redirectUri });
    expect(ok.status).toBe(200);
    const claimed = expectStatus(
      await api<{ tokens: { id: string; expires_at: string | null }[] }>("GET", `/api/v1/users/${meId}/tokens`),
      200,
    );
    expect(claimed.tokens.find((t) => t.id === ok.body.token_id)?.expires_at).toBeNull(); // the team has no max_token_days
    const me = await callWorker(new Request(`${BASE}/api/v1/me`, { headers: { authorization: `Bearer ${ok.body.token}` } }), bindings);
    expect(((await me.json()) as Me).user?.email).toBe(email("cli"));
    const replay = await exchange({ code: second, code_verifier: verifier, redirect_uri: redirectUri });
    expect(replay.status).toBe(401);
  });

  it("refuses a redirect to anything but a loopback address", async () => {
    const { email } = await ssoTeam();
    const browser = new Browser(bindings);
    await browser.signIn(email("net"));
    const { challenge } = await pkce();
    for (const redirect of [
      "https://evil.example/callback",
      "http://10.0.0.5:8000/callback",
      "http://127.0.0.1.evil.example:80/cb",
      "http://127.0.0.1/cb",
    ]) {
      const res = await browser.request(startUrl(challenge, redirect));
      expect(res.status, redirect).toBe(400);
      expect(await res.text()).toContain("never another address");
    }
  });
});
