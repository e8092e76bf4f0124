// The role rules of every admin endpoint: the operator, a team's admin, its
// member, another team's admin and the single-user principal. Outside the
// caller's reach is 404 not_found, never 403; 403 is for what the caller sees.
import { beforeAll, describe, expect, it } from "vitest";
import {
  api,
  type ApiError,
  type ApiResponse,
  createUser,
  expectStatus,
  issueToken,
  LOCAL_TOKEN,
  type Member,
  OPERATOR_TOKEN,
  type Team,
  teamWithPeople,
} from "../../support/admin-client.ts";

let team: Team;
let admin: Member;
let memberA: Member;
/** Another member of the same team. */
let peer: Member;
let otherTeam: Team;
let otherAdmin: Member;

beforeAll(async () => {
  ({ team, admin, member: memberA } = await teamWithPeople());
  const user = await createUser(team.id, "member");
  peer = { user, token: (await issueToken(user.id)).token };
  ({ team: otherTeam, admin: otherAdmin } = await teamWithPeople());
});

function expectError(res: ApiResponse<unknown>, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as ApiError).error?.code }).toEqual({ status, code });
  expect((res.body as ApiError).error.message).toEqual(expect.any(String));
}

describe("GET /api/v1/me", () => {
  it("answers every kind of token with who it is", async () => {
    expect(expectStatus(await api("GET", "/api/v1/me"), 200)).toEqual({
      user: null,
      team: null,
      operator: true,
      principal: "operator",
      token: null,
      signed_in_via: null,
      session: null,
      team_max_token_days: null,
    });
    expect(expectStatus(await api("GET", "/api/v1/me", { token: LOCAL_TOKEN }), 200)).toEqual({
      user: null,
      team: null,
      operator: false,
      principal: "local",
      token: null,
      signed_in_via: null,
      session: null,
      team_max_token_days: null,
    });
    expect(expectStatus(await api("GET", "/api/v1/me", { token: admin.token }), 200)).toMatchObject({
      user: { id: admin.user.id, role: "admin", team_id: team.id },
      team: { id: team.id, name: team.name },
      operator: false,
    });
  });

  it("refuses a request without a token with 401 unauthenticated in the admin error shape", async () => {
    expectError(await api("GET", "/api/v1/me", { token: null }), 401, "unauthenticated");
    expectError(await api("GET", "/api/v1/me", { token: "wrong" }), 401, "unauthenticated");
  });
});

describe("teams", () => {
  it("lets only the operator create a team", async () => {
    const created = expectStatus(
      await api<Team>("POST", "/api/v1/teams", { body: { name: `t ${crypto.randomUUID()}`, monthly_token_budget: 1000 } }),
      201,
    );
    expect(created).toEqual({
      id: expect.stringMatching(/^team_/),
      name: expect.any(String),
      monthly_token_budget: 1000,
      code_mode_cpu_ms: null,
      sso_domains: [],
      sso_default_role: "member",
      max_token_days: null,
      otlp: null,
      created_at: expect.any(String),
    });
    expect(new Date(created.created_at).toISOString()).toBe(created.created_at);
    for (const token of [admin.token, memberA.token, LOCAL_TOKEN]) {
      expectError(await api("POST", "/api/v1/teams", { token, body: { name: `t ${crypto.randomUUID()}` } }), 403, "permission_denied");
    }
  });

  it("refuses a second team with the same name with 409 already_exists", async () => {
    expectError(await api("POST", "/api/v1/teams", { body: { name: team.name } }), 409, "already_exists");
  });

  it("lists every team for the operator and only the caller's own team for anyone else", async () => {
    const all = expectStatus(await api<{ teams: Team[] }>("GET", "/api/v1/teams"), 200).teams.map((t) => t.id);
    expect(all).toEqual(expect.arrayContaining([team.id, otherTeam.id]));
    for (const token of [admin.token, memberA.token]) {
      expect(expectStatus(await api<{ teams: Team[] }>("GET", "/api/v1/teams", { token }), 200).teams.map((t) => t.id)).toEqual([team.id]);
    }
    expect(
      expectStatus(await api<{ teams: Team[] }>("GET", "/api/v1/teams", { token: otherAdmin.token }), 200).teams.map((t) => t.id),
    ).toEqual([otherTeam.id]);
    expect(expectStatus(await api("GET", "/api/v1/teams", { token: LOCAL_TOKEN }), 200)).toEqual({ teams: [] });
  });

  it("lets the operator and the team's admin change a team; its member gets 403, anyone else 404", async () => {
    expect(
      expectStatus(await api<Team>("PATCH", `/api/v1/teams/${team.id}`, { body: { monthly_token_budget: 5 } }), 200).monthly_token_budget,
    ).toBe(5);
    const renamed = expectStatus(
      await api<Team>("PATCH", `/api/v1/teams/${team.id}`, { token: admin.token, body: { monthly_token_budget: null } }),
      200,
    );
    expect(renamed).toMatchObject({ id: team.id, name: team.name, monthly_token_budget: null });
    expectError(
      await api("PATCH", `/api/v1/teams/${team.id}`, { token: memberA.token, body: { monthly_token_budget: 1 } }),
      403,
      "permission_denied",
    );
    expectError(
      await api("PATCH", `/api/v1/teams/${team.id}`, { token: otherAdmin.token, body: { monthly_token_budget: 1 } }),
      404,
      "not_found",
    );
    expectError(
      await api("PATCH", `/api/v1/teams/${team.id}`, { token: LOCAL_TOKEN, body: { monthly_token_budget: 1 } }),
      404,
      "not_found",
    );
    expectError(await api("PATCH", "/api/v1/teams/team_nope", { body: { monthly_token_budget: 1 } }), 404, "not_found");
  });
});

describe("users", () => {
  it("lets the operator and the team's admin add users; its member gets 403, another team's admin 404", async () => {
    const email = () => `u-${crypto.randomUUID()}@example.com`;
    const byOperator = expectStatus(await api("POST", `/api/v1/teams/${team.id}/users`, { body: { email: email(), role: "member" } }), 201);
    expect(byOperator).toEqual({
      id: expect.stringMatching(/^usr_/),
      team_id: team.id,
      email: expect.any(String),
      role: "member",
      requests_per_minute: null,
      max_concurrent_runs: null,
      created_at: expect.any(String),
    });
    const byAdmin = expectStatus(
      await api("POST", `/api/v1/teams/${team.id}/users`, {
        token: admin.token,
        body: { email: email(), role: "admin", requests_per_minute: 30, max_concurrent_runs: 2 },
      }),
      201,
    );
    expect(byAdmin).toMatchObject({ role: "admin", requests_per_minute: 30, max_concurrent_runs: 2 });
    expectError(
      await api("POST", `/api/v1/teams/${team.id}/users`, { token: memberA.token, body: { email: email(), role: "member" } }),
      403,
      "permission_denied",
    );
    expectError(
      await api("POST", `/api/v1/teams/${team.id}/users`, { token: otherAdmin.token, body: { email: email(), role: "member" } }),
      404,
      "not_found",
    );
  });

  it("refuses a second user with the same email in a team, whatever its case, with 409", async () => {
    expectError(
      await api("POST", `/api/v1/teams/${team.id}/users`, { body: { email: memberA.user.email.toUpperCase(), role: "member" } }),
      409,
      "already_exists",
    );
    // Another team may have the same address.
    expectStatus(await api("POST", `/api/v1/teams/${otherTeam.id}/users`, { body: { email: memberA.user.email, role: "member" } }), 201);
  });

  it("lists a team's users for the operator and its admin only", async () => {
    const ids = expectStatus(
      await api<{ users: { id: string }[] }>("GET", `/api/v1/teams/${team.id}/users`, { token: admin.token }),
      200,
    ).users.map((u) => u.id);
    expect(ids).toEqual(expect.arrayContaining([admin.user.id, memberA.user.id, peer.user.id]));
    expectStatus(await api("GET", `/api/v1/teams/${team.id}/users`), 200);
    expectError(await api("GET", `/api/v1/teams/${team.id}/users`, { token: memberA.token }), 403, "permission_denied");
    expectError(await api("GET", `/api/v1/teams/${team.id}/users`, { token: otherAdmin.token }), 404, "not_found");
  });

  it("lets the operator and the team's admin change a user; the user gets 403, a peer and another team's admin 404", async () => {
    const path = `/api/v1/users/${memberA.user.id}`;
    expect(expectStatus(await api("PATCH", path, { body: { requests_per_minute: 10 } }), 200)).toMatchObject({ requests_per_minute: 10 });
    expect(
      expectStatus(await api("PATCH", path, { token: admin.token, body: { max_concurrent_runs: 3, requests_per_minute: null } }), 200),
    ).toMatchObject({
      requests_per_minute: null,
      max_concurrent_runs: 3,
    });
    expectError(await api("PATCH", path, { token: memberA.token, body: { role: "admin" } }), 403, "permission_denied");
    expectError(await api("PATCH", path, { token: peer.token, body: { role: "admin" } }), 404, "not_found");
    expectError(await api("PATCH", path, { token: otherAdmin.token, body: { role: "admin" } }), 404, "not_found");
  });

  it("applies a new role at once: a member made admin may list the team's users", async () => {
    const { team: t, member: m } = await teamWithPeople();
    expectError(await api("GET", `/api/v1/teams/${t.id}/users`, { token: m.token }), 403, "permission_denied");
    expectStatus(await api("PATCH", `/api/v1/users/${m.user.id}`, { body: { role: "admin" } }), 200);
    expectStatus(await api("GET", `/api/v1/teams/${t.id}/users`, { token: m.token }), 200);
  });

  it("lets the operator and the team's admin remove a user; the user gets 403, another team's admin 404", async () => {
    const victim = await createUser(team.id, "member");
    const victimToken = (await issueToken(victim.id)).token;
    expectError(await api("DELETE", `/api/v1/users/${victim.id}`, { token: victimToken }), 403, "permission_denied");
    expectError(await api("DELETE", `/api/v1/users/${victim.id}`, { token: otherAdmin.token }), 404, "not_found");
    expect((await api("DELETE", `/api/v1/users/${victim.id}`, { token: admin.token })).status).toBe(204);
    expectError(await api("DELETE", `/api/v1/users/${victim.id}`), 404, "not_found");
    const another = await createUser(team.id, "member");
    expect((await api("DELETE", `/api/v1/users/${another.id}`)).status).toBe(204);
  });

  it("keeps a team's last admin: demoting or removing them is 412 failed_precondition", async () => {
    const { team: t, admin: a } = await teamWithPeople();
    expectError(await api("PATCH", `/api/v1/users/${a.user.id}`, { body: { role: "member" } }), 412, "failed_precondition");
    expectError(await api("DELETE", `/api/v1/users/${a.user.id}`, { token: a.token }), 412, "failed_precondition");
    const second = await createUser(t.id, "admin");
    expect(expectStatus(await api("PATCH", `/api/v1/users/${a.user.id}`, { body: { role: "member" } }), 200)).toMatchObject({
      role: "member",
    });
    expectError(await api("DELETE", `/api/v1/users/${second.id}`), 412, "failed_precondition");
  });
});

describe("tokens", () => {
  it("lets the operator, the team's admin and the user issue and list the user's tokens; a peer and another team's admin get 404", async () => {
    const path = `/api/v1/users/${memberA.user.id}/tokens`;
    for (const token of [OPERATOR_TOKEN, admin.token, memberA.token]) {
      expect(expectStatus(await api("POST", path, { token, body: { name: "x" } }), 201)).toMatchObject({
        token: expect.stringMatching(/^byok_/),
      });
      expect(expectStatus(await api<{ tokens: unknown[] }>("GET", path, { token }), 200).tokens.length).toBeGreaterThan(0);
    }
    for (const token of [peer.token, otherAdmin.token, LOCAL_TOKEN]) {
      expectError(await api("POST", path, { token, body: { name: "x" } }), 404, "not_found");
      expectError(await api("GET", path, { token }), 404, "not_found");
    }
  });

  it("lets the operator, the team's admin and the user revoke a token; a peer and another team's admin get 404", async () => {
    for (const token of [OPERATOR_TOKEN, admin.token, memberA.token]) {
      const issued = await issueToken(memberA.user.id, { name: "to revoke" });
      for (const outsider of [peer.token, otherAdmin.token, LOCAL_TOKEN]) {
        expectError(await api("DELETE", `/api/v1/tokens/${issued.id}`, { token: outsider }), 404, "not_found");
      }
      expect((await api("DELETE", `/api/v1/tokens/${issued.id}`, { token })).status).toBe(204);
      expectError(await api("GET", "/api/v1/me", { token: issued.token }), 401, "unauthenticated");
    }
    expectError(await api("DELETE", "/api/v1/tokens/tok_nope"), 404, "not_found");
  });
});
