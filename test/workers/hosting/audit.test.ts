// The audit log (docs/hosting.md#audit-log): every admin-API write makes exactly one entry per
// action, in the same D1 batch as its change (a write that fails leaves none), a permission
// refusal makes one `denied` entry and nothing else, GET /api/v1/audit pages newest first with
// filters and shows each caller only what is theirs to see, tokens issued by someone else are
// marked in their owner's list, the daily prune deletes what is older than the retention, and
// no entry holds a token, key or header value.
import { describe, expect, it } from "vitest";
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../../src/worker.ts";
import type { AppEnv } from "../../../src/core/env.ts";
import { recordAudit } from "../../../src/hosting/store/audit-rows.ts";
import { d1 } from "../../../src/hosting/store/db.ts";
import {
  api,
  type ApiError,
  createUser,
  expectStatus,
  issueToken as issueTokenVia,
  LOCAL_TOKEN,
  OPERATOR_TOKEN,
  teamWithPeople as newTeamWithPeople,
} from "../../support/admin-client.ts";

interface Entry {
  id: string;
  at: string;
  actor: { kind: string; id: string; email: string | null };
  action: string;
  target: { kind: string; id: string; name?: string };
  team_id: string | null;
  outcome: "ok" | "denied" | "failed";
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

interface Page {
  entries: Entry[];
  next_cursor: string | null;
}

const KEY = "sk-audit-secret-key-0123456789abcdef";
const ROTATED_KEY = "sk-audit-rotated-key-fedcba9876543210";
const HEADER_VALUE = "helicone-secret-header-value-42";
const MODEL_HEADER_VALUE = "cf-aig-secret-header-value-77";

/** Every team and token this file makes, for the last test's search for secrets. */
const teamsMade = new Set<string>();
const tokensMade = new Set<string>([OPERATOR_TOKEN]);
const fileStart = new Date().toISOString();

async function teamWithPeople() {
  const made = await newTeamWithPeople();
  teamsMade.add(made.team.id);
  tokensMade.add(made.admin.token).add(made.member.token);
  return made;
}

async function issueToken(...args: Parameters<typeof issueTokenVia>) {
  const issued = await issueTokenVia(...args);
  tokensMade.add(issued.token);
  return issued;
}

async function audit(query: Record<string, string>, token = OPERATOR_TOKEN): Promise<Page> {
  return expectStatus(await api<Page>("GET", `/api/v1/audit?${new URLSearchParams(query)}`, { token }), 200);
}

/** Every entry of a filter, all pages. */
async function allEntries(query: Record<string, string>, token = OPERATOR_TOKEN): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await audit({ ...query, limit: "200", ...(cursor && { cursor }) }, token);
    entries.push(...page.entries);
    cursor = page.next_cursor;
  } while (cursor);
  return entries;
}

function counts(entries: Entry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries) out[`${e.action} ${e.outcome}`] = (out[`${e.action} ${e.outcome}`] ?? 0) + 1;
  return out;
}

function credentialBody(scope: "user" | "team", extra: Record<string, unknown> = {}) {
  return {
    name: `cred ${crypto.randomUUID()}`,
    provider: "openai-chat",
    base_url: `${env.FAKE_PROVIDER_URL}/v1`,
    api_key: KEY,
    scope,
    headers: { "helicone-auth": HEADER_VALUE },
    ...extra,
  };
}

describe("the audit log", () => {
  it("records every admin-API write once per action, with who, where, what and which team", async () => {
    const since = new Date().toISOString();
    const { team, admin } = await teamWithPeople();
    const headers = { "cf-connecting-ip": "203.0.113.9", "user-agent": "audit-test/1" };
    const call = (method: string, path: string, token: string, body?: unknown) => api(method, path, { token, body, headers });

    expectStatus(await call("PATCH", `/api/v1/teams/${team.id}`, admin.token, { name: `renamed ${crypto.randomUUID()}` }), 200);
    expectStatus(await call("PATCH", `/api/v1/teams/${team.id}`, admin.token, { monthly_token_budget: 1_000_000 }), 200);
    const added = expectStatus(
      await call("POST", `/api/v1/teams/${team.id}/users`, admin.token, { email: `x-${crypto.randomUUID()}@example.com`, role: "member" }),
      201,
    ) as { id: string };
    expectStatus(await call("PATCH", `/api/v1/users/${added.id}`, admin.token, { role: "admin" }), 200);
    expectStatus(await call("PATCH", `/api/v1/users/${added.id}`, admin.token, { requests_per_minute: 30 }), 200);
    const issued = expectStatus(await call("POST", `/api/v1/users/${added.id}/tokens`, admin.token, { name: "for x" }), 201) as {
      id: string;
      token: string;
    };
    tokensMade.add(issued.token);
    expectStatus(await call("DELETE", `/api/v1/tokens/${issued.id}`, admin.token), 204);
    // Revoking again changes nothing, so records nothing.
    expectStatus(await call("DELETE", `/api/v1/tokens/${issued.id}`, admin.token), 204);
    expectStatus(await call("DELETE", `/api/v1/users/${added.id}`, admin.token), 204);

    const cred = expectStatus(await call("POST", "/api/v1/credentials", admin.token, credentialBody("team")), 201) as { id: string };
    expectStatus(await call("POST", `/api/v1/credentials/${cred.id}/rotate`, admin.token, { api_key: ROTATED_KEY }), 200);
    const model = expectStatus(
      await call("POST", "/api/v1/models", admin.token, {
        name: `m-${crypto.randomUUID()}`,
        credential_id: cred.id,
        model: "gpt-test",
        scope: "team",
      }),
      201,
    ) as { id: string };
    expectStatus(await call("PATCH", `/api/v1/models/${model.id}`, admin.token, { reasoning_effort: "low" }), 200);
    expectStatus(await call("PATCH", `/api/v1/models/${model.id}`, admin.token, { enabled: false }), 200);
    expectStatus(await call("PATCH", `/api/v1/models/${model.id}`, admin.token, { enabled: true }), 200);
    expectStatus(await call("DELETE", `/api/v1/models/${model.id}`, admin.token), 204);
    expectStatus(await call("DELETE", `/api/v1/credentials/${cred.id}`, admin.token), 204);

    const entries = await allEntries({ team_id: team.id });
    expect(counts(entries)).toEqual({
      "team.create ok": 1,
      "team.rename ok": 1,
      "team.budget ok": 1,
      "user.add ok": 3, // teamWithPeople's admin and member, and x
      "user.role ok": 1,
      "user.limits ok": 1,
      "user.remove ok": 1,
      "token.issue ok": 3, // the operator's two for teamWithPeople, and the admin's for x
      "token.revoke ok": 1,
      "credential.create ok": 1,
      "credential.rotate ok": 1,
      "credential.delete ok": 1,
      "model.create ok": 1,
      "model.update ok": 1,
      "model.disable ok": 1,
      "model.enable ok": 1,
      "model.delete ok": 1,
    });
    expect(entries.every((e) => e.team_id === team.id)).toBe(true);
    const byAdmin = entries.filter((e) => e.actor.id === admin.user.id);
    expect(byAdmin).toHaveLength(16);
    for (const e of byAdmin) {
      expect(e).toMatchObject({
        actor: { kind: "user", id: admin.user.id, email: admin.user.email },
        ip: "203.0.113.9",
        user_agent: "audit-test/1",
      });
    }
    expect(entries.find((e) => e.action === "user.role")).toMatchObject({
      target: { kind: "user", id: added.id },
      details: { from: "member", to: "admin" },
    });
    expect(entries.find((e) => e.action === "team.budget")?.details).toEqual({ from: null, to: 1_000_000 });
    expect(entries.find((e) => e.action === "token.issue" && e.target.id === issued.id)).toMatchObject({
      target: { kind: "token", id: issued.id, name: "for x" },
      details: { user_id: added.id, for_other: true },
    });
    expect(entries.find((e) => e.action === "credential.create")).toMatchObject({
      target: { kind: "credential", id: cred.id },
      details: { scope: "team", provider: "openai-chat", header_names: ["helicone-auth"] },
    });
    expect(entries.find((e) => e.action === "model.update")?.details).toMatchObject({ fields: ["reasoning_effort"] });
    expect(entries.find((e) => e.action === "team.create")?.actor).toEqual({ kind: "operator", id: "operator", email: null });

    // A rewrap is the operator's, of no one team.
    expectStatus(await api("POST", "/api/v1/admin/rewrap"), 200);
    const rewraps = await allEntries({ action: "keys.rewrap", actor_id: "operator", since });
    expect(rewraps).toHaveLength(1);
    expect(rewraps[0]).toMatchObject({ team_id: null, target: { kind: "data_keys" }, outcome: "ok" });
  });

  it("records both actions of a PATCH that changes two things, a member's own token and a member's personal credential", async () => {
    const { team, member } = await teamWithPeople();
    expectStatus(
      await api("PATCH", `/api/v1/teams/${team.id}`, { body: { name: `both ${crypto.randomUUID()}`, monthly_token_budget: 5 } }),
      200,
    );
    await issueToken(member.user.id, { name: "mine" }, member.token);
    const cred = expectStatus(await api("POST", "/api/v1/credentials", { token: member.token, body: credentialBody("user") }), 201) as {
      id: string;
    };

    const entries = await allEntries({ team_id: team.id });
    expect(counts(entries)).toMatchObject({ "team.rename ok": 1, "team.budget ok": 1, "token.issue ok": 3, "credential.create ok": 1 });
    const own = entries.find((e) => e.action === "token.issue" && e.actor.id === member.user.id);
    expect(own?.details).toMatchObject({ user_id: member.user.id, for_other: false });
    expect(entries.find((e) => e.target.id === cred.id)?.details).toMatchObject({ scope: "user" });
  });

  it("records a write refused for lack of permission as one denied entry, and nothing of the write", async () => {
    const { team, admin, member } = await teamWithPeople();
    const before = await allEntries({ team_id: team.id });

    const refused = await api<ApiError>("PATCH", `/api/v1/teams/${team.id}`, { token: member.token, body: { name: "taken over" } });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 403, code: "permission_denied" });
    const teamCred = await api("POST", "/api/v1/credentials", { token: member.token, body: credentialBody("team") });
    expect(teamCred.status).toBe(403);
    const rewrap = await api("POST", "/api/v1/admin/rewrap", { token: admin.token });
    expect(rewrap.status).toBe(403);

    const after = await allEntries({ team_id: team.id });
    const added = after.filter((e) => !before.some((b) => b.id === e.id));
    expect(counts(added)).toEqual({ "team.rename denied": 1, "credential.create denied": 1, "keys.rewrap denied": 1 });
    expect(added.find((e) => e.action === "team.rename")).toMatchObject({
      actor: { kind: "user", id: member.user.id },
      target: { kind: "team", id: team.id },
      team_id: team.id,
    });
    // The refused credential's name is recorded, never its key or header value.
    expect(JSON.stringify(added)).not.toContain(KEY);
    expect(JSON.stringify(added)).not.toContain(HEADER_VALUE);
    const teams = expectStatus(await api<{ teams: { id: string; name: string }[] }>("GET", "/api/v1/teams", { token: admin.token }), 200);
    expect(teams.teams[0]?.name).toBe(team.name);
  });

  it("writes no entry for a write whose batch fails or that changes nothing: a name taken, an email taken, the last admin, another team's id", async () => {
    const { team, admin, member } = await teamWithPeople();
    const { team: other } = await teamWithPeople();
    const before = await allEntries({ team_id: team.id });

    // The update's UNIQUE violation fails the whole batch, its entry with it.
    const taken = await api("PATCH", `/api/v1/teams/${team.id}`, { token: admin.token, body: { name: other.name } });
    expect(taken.status).toBe(409);
    const dup = await api("POST", `/api/v1/teams/${team.id}/users`, {
      token: admin.token,
      body: { email: member.user.email, role: "member" },
    });
    expect(dup.status).toBe(409);
    // A conditional update that matches nothing writes no entry (changes() is 0).
    const last = await api("PATCH", `/api/v1/users/${admin.user.id}`, { token: admin.token, body: { role: "member" } });
    expect(last.status).toBe(412);
    const removeLast = await api("DELETE", `/api/v1/users/${admin.user.id}`, { token: admin.token });
    expect(removeLast.status).toBe(412);
    // Outside the caller's reach: 404, not a refusal to record in this team.
    const elsewhere = await api("PATCH", `/api/v1/teams/${other.id}`, { token: admin.token, body: { name: "x" } });
    expect(elsewhere.status).toBe(404);
    // A model name taken: the insert selects nothing, and so does its entry.
    const cred = expectStatus(await api("POST", "/api/v1/credentials", { token: admin.token, body: credentialBody("team") }), 201) as {
      id: string;
    };
    const name = `m-${crypto.randomUUID()}`;
    const model = { name, credential_id: cred.id, model: "gpt-test", scope: "team" };
    expectStatus(await api("POST", "/api/v1/models", { token: admin.token, body: model }), 201);
    expect((await api("POST", "/api/v1/models", { token: admin.token, body: model })).status).toBe(409);

    const after = await allEntries({ team_id: team.id });
    const added = after.filter((e) => !before.some((b) => b.id === e.id));
    expect(counts(added)).toEqual({ "credential.create ok": 1, "model.create ok": 1 });
  });

  it("is append-only: D1 refuses to change an entry", async () => {
    const { team } = await teamWithPeople();
    const [entry] = (await audit({ team_id: team.id, limit: "1" })).entries;
    await expect(env.DB.prepare("UPDATE audit SET outcome = 'ok', action = 'x' WHERE id = ?").bind(entry?.id).run()).rejects.toThrow(
      /append-only/,
    );
  });

  it("pages newest first without repeats, and filters by actor, action and time", async () => {
    const { team, admin } = await teamWithPeople();
    for (let i = 0; i < 5; i++)
      expectStatus(await api("PATCH", `/api/v1/teams/${team.id}`, { token: admin.token, body: { monthly_token_budget: i } }), 200);

    const all = await allEntries({ team_id: team.id });
    const seen: Entry[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await audit({ team_id: team.id, limit: "2", ...(cursor && { cursor }) });
      expect(page.entries.length).toBeLessThanOrEqual(2);
      seen.push(...page.entries);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.map((e) => e.id)).toEqual(all.map((e) => e.id));
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    const times = seen.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // The budget changes are newest: 4 first.
    expect(seen[0]).toMatchObject({ action: "team.budget", details: { to: 4 } });

    const budgets = await allEntries({ team_id: team.id, action: "team.budget", actor_id: admin.user.id });
    expect(budgets.map((e) => e.details.to)).toEqual([4, 3, 2, 1, 0]);
    expect(await allEntries({ team_id: team.id, actor_id: "operator", action: "team.budget" })).toEqual([]);
    const middle = budgets[2]!;
    const since = await allEntries({ team_id: team.id, action: "team.budget", since: middle.at });
    expect(since.every((e) => Date.parse(e.at) >= Date.parse(middle.at))).toBe(true);
    const until = await allEntries({ team_id: team.id, action: "team.budget", until: middle.at });
    expect(until.every((e) => Date.parse(e.at) < Date.parse(middle.at))).toBe(true);
    expect(since.length + until.length).toBe(5);

    for (const [query, path] of [
      [{ cursor: "nope" }, "query.cursor"],
      [{ limit: "0" }, "query.limit"],
      [{ action: "team.explode" }, "query.action"],
      [{ since: "yesterday" }, "query.since"],
      [{ since: middle.at, until: middle.at }, "query.until"],
    ] as const) {
      const res = await api<ApiError>("GET", `/api/v1/audit?${new URLSearchParams(query)}`);
      expect(res.status).toBe(400);
      expect(res.body.error.fields?.map((f) => f.path)).toEqual([path]);
    }
  });

  it("shows the operator everything, an admin their team's, a member what they did or what is about them", async () => {
    const { team, admin, member } = await teamWithPeople();
    const { team: other, admin: otherAdmin } = await teamWithPeople();
    const peer = await createUser(team.id, "member", admin.token);
    await issueToken(peer.id, { name: "peer's" }, admin.token);
    await issueToken(member.user.id, { name: "given" }, admin.token);
    await issueToken(member.user.id, { name: "own" }, member.token);

    const adminView = await allEntries({}, admin.token);
    expect(adminView.length).toBeGreaterThan(0);
    expect(adminView.every((e) => e.team_id === team.id)).toBe(true);
    expect(adminView.some((e) => e.team_id === other.id)).toBe(false);
    // Naming another team is 404; naming their own narrows nothing away.
    expect((await api("GET", `/api/v1/audit?team_id=${other.id}`, { token: admin.token })).status).toBe(404);
    expect((await allEntries({ team_id: team.id }, admin.token)).map((e) => e.id)).toEqual(adminView.map((e) => e.id));

    const memberView = await allEntries({}, member.token);
    expect(memberView.map((e) => `${e.action} ${e.target.name ?? e.target.id}`).sort()).toEqual(
      [`user.add ${member.user.email}`, "token.issue test", "token.issue given", "token.issue own"].sort(),
    );
    expect(memberView.some((e) => e.target.id === peer.id || e.details.user_id === peer.id)).toBe(false);
    expect((await api("GET", `/api/v1/audit?team_id=${other.id}`, { token: member.token })).status).toBe(404);

    const operatorView = await allEntries({ team_id: other.id });
    expect(operatorView.some((e) => e.actor.id === otherAdmin.user.id || e.action === "team.create")).toBe(true);
    // The single user sees its own entries only.
    expect((await allEntries({}, LOCAL_TOKEN)).every((e) => e.actor.id === "local")).toBe(true);
  });

  it("marks a token issued by someone else in its owner's list, and not one they issued themselves", async () => {
    const { admin, member } = await teamWithPeople();
    const given = await issueToken(member.user.id, { name: "given" }, admin.token);
    const own = await issueToken(member.user.id, { name: "own" }, member.token);
    const listed = expectStatus(
      await api<{ tokens: { id: string; issued_by: unknown }[] }>("GET", `/api/v1/users/${member.user.id}/tokens`, { token: member.token }),
      200,
    );
    const byId = new Map(listed.tokens.map((t) => [t.id, t.issued_by]));
    expect(byId.get(given.id)).toEqual({ kind: "user", id: admin.user.id, email: admin.user.email });
    expect(byId.get(own.id)).toBeNull();
  });

  it("prunes entries older than the retention period in the daily scheduled run", async () => {
    const { team } = await teamWithPeople();
    const now = Date.now();
    const day = 86_400_000;
    const old = (ageDays: number) => ({
      atMs: now - ageDays * day,
      actor: { kind: "operator" as const, id: "operator", email: null },
      action: "team.budget" as const,
      target: { kind: "team", id: team.id },
      teamId: team.id,
      outcome: "ok" as const,
      ip: null,
      userAgent: null,
      details: { age_days: ageDays },
    });
    await recordAudit(d1(env.DB), [old(401), old(500), old(399)]);

    await worker.scheduled(createScheduledController({ scheduledTime: now, cron: "17 3 * * *" }), env as AppEnv);

    const left = await allEntries({ team_id: team.id, action: "team.budget" });
    expect(left.map((e) => e.details.age_days)).toEqual([399]);
    // The team's own recent entries stay.
    expect((await allEntries({ team_id: team.id, action: "team.create" })).length).toBe(1);
  });

  // Last, so that it searches the entries of every test before it too.
  it("holds no token, key or header value in any entry of this file", async () => {
    const { team, admin, member } = await teamWithPeople();
    const issued = [
      await issueToken(member.user.id, { name: "a" }, admin.token),
      await issueToken(member.user.id, { name: "b" }, member.token),
    ];
    const cred = expectStatus(await api("POST", "/api/v1/credentials", { token: admin.token, body: credentialBody("team") }), 201) as {
      id: string;
    };
    expectStatus(await api("POST", `/api/v1/credentials/${cred.id}/rotate`, { token: admin.token, body: { api_key: ROTATED_KEY } }), 200);
    const personal = expectStatus(await api("POST", "/api/v1/credentials", { token: member.token, body: credentialBody("user") }), 201) as {
      id: string;
    };
    const modelBody = {
      name: `m-${crypto.randomUUID()}`,
      credential_id: personal.id,
      model: "gpt-test",
      scope: "user",
      headers: { "cf-aig-authorization": MODEL_HEADER_VALUE },
    };
    const model = expectStatus(await api("POST", "/api/v1/models", { token: member.token, body: modelBody }), 201) as { id: string };
    expectStatus(
      await api("PATCH", `/api/v1/models/${model.id}`, {
        token: member.token,
        body: { headers: { "cf-aig-authorization": `${MODEL_HEADER_VALUE}-2` } },
      }),
      200,
    );
    // Refused writes carrying secrets too.
    expect((await api("POST", "/api/v1/credentials", { token: member.token, body: credentialBody("team") })).status).toBe(403);
    expectStatus(await api("POST", "/api/v1/admin/rewrap"), 200);

    const secrets = [
      KEY,
      ROTATED_KEY,
      HEADER_VALUE,
      MODEL_HEADER_VALUE,
      ...tokensMade,
      ...issued.map((t) => t.token),
      (env as AppEnv).KEY_ENCRYPTION_KEY,
      (env as AppEnv).KEY_ENCRYPTION_KEY_PREVIOUS,
    ].filter((s): s is string => typeof s === "string" && s.length > 0);
    // Every entry of every team this file made, and the rewraps since it started, through the API and in D1.
    const entries = (await Promise.all([...teamsMade].map((id) => allEntries({ team_id: id })))).flat();
    entries.push(...(await allEntries({ action: "keys.rewrap", since: fileStart })));
    expect(entries.filter((e) => e.team_id === team.id).length).toBeGreaterThanOrEqual(10);
    const rows = await env.DB.prepare(
      "SELECT * FROM audit WHERE team_id IN (SELECT value FROM json_each(?)) OR (action = 'keys.rewrap' AND at_ms >= ?)",
    )
      .bind(JSON.stringify([...teamsMade]), Date.parse(fileStart))
      .all();
    expect(rows.results.length).toBe(new Set(entries.map((e) => e.id)).size);
    for (const text of [JSON.stringify(entries), JSON.stringify(rows.results)]) {
      for (const secret of secrets) {
        // The whole value and its tail (a token without its byok_ prefix).
        expect(text).not.toContain(secret);
        expect(text).not.toContain(secret.slice(-16));
      }
    }
  });
});
