// User tokens end to end: issued once and stored as a hash, accepted on Cursor
// calls and the admin API, listed without the secret, revoked, expired, and the
// 5 s bound of the token cache (its clock is moved, nothing sleeps).
import { afterEach, describe, expect, it, vi } from "vitest";
import { env, exports } from "cloudflare:workers";
import { setTokenClock } from "../../../src/hosting/auth/principal.ts";
import { userTokenHash } from "../../../src/hosting/auth/user-token.ts";
import {
  api,
  type ApiError,
  createTeam,
  createUser,
  expectStatus,
  issueToken,
  member,
  OPERATOR_TOKEN,
} from "../../support/admin-client.ts";
import { BASE, bidiAppend, heartbeat, runRequest } from "../../support/cursor-client.ts";

afterEach(() => setTokenClock(Date.now));

/** A Cursor unary call (the model list) with the given token. */
function usableModels(token: string): Promise<Response> {
  return exports.default.fetch(`${BASE}/agent.v1.AgentService/GetUsableModels`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/proto" },
    body: new Uint8Array(0),
  });
}

async function me(token: string) {
  return api<{ user: { id: string } | null; operator: boolean }>("GET", "/api/v1/me", { token });
}

/** Freezes the token cache's clock at `ms` (a lookup then counts from exactly there). */
function clockAt(ms: number): void {
  setTokenClock(() => ms);
}

describe("user tokens", () => {
  it("issues a byok_ token with 256 random bits, shown once and stored only as its SHA-256", async () => {
    const team = await createTeam();
    const user = await createUser(team.id, "member");
    const issued = await issueToken(user.id, { name: "laptop" });
    expect(issued.token).toMatch(/^byok_[A-Za-z0-9_-]{43}$/);
    expect(issued).toMatchObject({ name: "laptop", expires_at: null });

    const rows = await env.DB.prepare("SELECT * FROM tokens WHERE user_id = ?").bind(user.id).all();
    expect(rows.results).toHaveLength(1);
    expect(rows.results[0]).toMatchObject({ id: issued.id, token_hash: await userTokenHash(issued.token) });
    expect(JSON.stringify(rows.results)).not.toContain(issued.token.slice(5));

    const listed = expectStatus(await api<{ tokens: Record<string, unknown>[] }>("GET", `/api/v1/users/${user.id}/tokens`), 200);
    expect(listed.tokens).toEqual([
      {
        id: issued.id,
        name: "laptop",
        created_at: expect.any(String),
        expires_at: null,
        last_used_at: null,
        revoked_at: null,
        // Issued by the operator, not the user: marked so in the user's own list (docs/hosting.md#audit-log).
        issued_by: { kind: "operator", id: "operator", email: null },
        holds_personal_key: false,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(issued.token.slice(5));
  });

  it("accepts a user token on Cursor calls and on the admin API, and records its last use", async () => {
    const team = await createTeam();
    const user = await createUser(team.id, "member");
    const { id: tokenId, token } = await issueToken(user.id, { name: "cli" });
    expect(expectStatus(await me(token), 200)).toEqual({
      user: { id: user.id, email: user.email, role: "member", team_id: team.id },
      team: { id: team.id, name: team.name },
      operator: false,
      principal: "user",
      token: { id: tokenId, name: "cli", expires_at: null },
      signed_in_via: "token",
      session: null,
      team_max_token_days: null,
    });
    const models = await usableModels(token);
    expect(models.status).toBe(200);
    const append = await bidiAppend(crypto.randomUUID(), 0, runRequest({ conversationId: crypto.randomUUID(), text: "hi" }), { token });
    expect(append.status).toBe(200);

    await vi.waitFor(
      async () => {
        const listed = expectStatus(
          await api<{ tokens: { last_used_at: string | null }[] }>("GET", `/api/v1/users/${user.id}/tokens`),
          200,
        );
        expect(listed.tokens[0]?.last_used_at).toEqual(expect.any(String));
      },
      { timeout: 5_000 },
    );
  });

  it("me names the token of the call, and none for the operator and local", async () => {
    const team = await createTeam();
    const user = await createUser(team.id, "member");
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const laptop = await issueToken(user.id, { name: "laptop", expires_at: expiresAt });
    const phone = await issueToken(user.id, { name: "phone" });
    const tokenOf = async (token: string) =>
      expectStatus(
        await api<{ token: { id: string; name: string; expires_at: string | null } | null }>("GET", "/api/v1/me", { token }),
        200,
      ).token;
    expect(await tokenOf(laptop.token)).toEqual({ id: laptop.id, name: "laptop", expires_at: expiresAt });
    expect(await tokenOf(phone.token)).toEqual({ id: phone.id, name: "phone", expires_at: null });
    expect(await tokenOf(OPERATOR_TOKEN)).toBeNull();
    expect(await tokenOf("test-token")).toBeNull();
  });

  it("refuses a token revoked through the API at once, on the admin API and on Cursor calls", async () => {
    const team = await createTeam();
    const { user, token } = await member(team.id, "member");
    expect((await me(token)).status).toBe(200);
    const { id } = expectStatus(await api<{ tokens: { id: string }[] }>("GET", `/api/v1/users/${user.id}/tokens`), 200).tokens[0]!;

    expect((await api("DELETE", `/api/v1/tokens/${id}`, { token })).status).toBe(204);
    const refused = await me(token);
    expect(refused.status).toBe(401);
    expect((refused.body as unknown as ApiError).error.code).toBe("unauthenticated");
    expect((await usableModels(token)).status).toBe(401);

    const listed = expectStatus(await api<{ tokens: { revoked_at: string | null }[] }>("GET", `/api/v1/users/${user.id}/tokens`), 200);
    expect(listed.tokens[0]?.revoked_at).toEqual(expect.any(String));
    // Revoking again changes nothing.
    expect((await api("DELETE", `/api/v1/tokens/${id}`)).status).toBe(204);
  });

  it("stops a token revoked in another isolate within 5 s, including a BidiAppend to a request it started", async () => {
    const team = await createTeam();
    const { user, token } = await member(team.id, "member");
    const t0 = Date.now();
    clockAt(t0);
    const requestId = crypto.randomUUID();
    const started = await bidiAppend(requestId, 0, runRequest({ conversationId: crypto.randomUUID(), text: "hi" }), { token });
    expect(started.status).toBe(200);

    // Another isolate revokes it: this isolate's cache does not hear of it.
    await env.DB.prepare("UPDATE tokens SET revoked_at_ms = ? WHERE user_id = ?").bind(t0, user.id).run();
    clockAt(t0 + 4_999);
    expect((await bidiAppend(requestId, 1, heartbeat(), { token })).status).toBe(200);
    clockAt(t0 + 5_001);
    const late = await bidiAppend(requestId, 2, heartbeat(), { token });
    expect(late.status).toBe(401);
    expect(((await late.json()) as { code: string }).code).toBe("unauthenticated");
    expect((await me(token)).status).toBe(401);
  });

  it("refuses an expired token once it expires, even when its check was cached a moment before", async () => {
    const team = await createTeam();
    const user = await createUser(team.id, "member");
    const t0 = Date.now();
    const expiresAt = t0 + 2_000;
    const { token, expires_at } = await issueToken(user.id, { expires_at: new Date(expiresAt).toISOString() });
    expect(expires_at).toBe(new Date(expiresAt).toISOString());
    clockAt(t0);
    expect((await me(token)).status).toBe(200);
    clockAt(expiresAt - 1);
    expect((await me(token)).status).toBe(200);
    clockAt(expiresAt);
    expect((await me(token)).status).toBe(401);
    expect((await usableModels(token)).status).toBe(401);
  });

  it("refuses an expiry in the past with invalid_argument", async () => {
    const team = await createTeam();
    const user = await createUser(team.id, "member");
    const res = await api<ApiError>("POST", `/api/v1/users/${user.id}/tokens`, {
      body: { name: "old", expires_at: "2020-01-01T00:00:00Z" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      code: "invalid_argument",
      message: "body.expires_at: must be in the future",
      fields: [{ path: "body.expires_at", message: "must be in the future" }],
    });
  });

  it("stops every token of a removed user", async () => {
    const team = await createTeam();
    const { user, token } = await member(team.id, "member");
    expect((await me(token)).status).toBe(200);
    expect((await api("DELETE", `/api/v1/users/${user.id}`)).status).toBe(204);
    expect((await me(token)).status).toBe(401);
    expect((await usableModels(token)).status).toBe(401);
  });

  it("refuses the operator token on Cursor calls: the operator never runs turns", async () => {
    const res = await usableModels(OPERATOR_TOKEN);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("permission_denied");
    const append = await bidiAppend(crypto.randomUUID(), 0, runRequest({ conversationId: crypto.randomUUID(), text: "hi" }), {
      token: OPERATOR_TOKEN,
    });
    expect(append.status).toBe(403);
  });

  it("refuses a well-formed token that was never issued", async () => {
    const res = await me(`byok_${"A".repeat(43)}`);
    expect(res.status).toBe(401);
    expect((res.body as unknown as ApiError).error).toEqual({ code: "unauthenticated", message: "missing or invalid bearer token" });
  });
});
