// The admin API's surface: validation and error shapes, the operator API without
// ADMIN_TOKEN, and the OpenAPI document with every route (its validity against the
// OpenAPI 3.1 schema is checked in Node: test/unit/hosting/openapi-document.test.ts).
import { describe, expect, it } from "vitest";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../../src/worker.ts";
import { adminApi } from "../../../src/hosting/admin/api.ts";
import { api, type ApiError, createTeam, LOCAL_TOKEN, member, OPERATOR_TOKEN } from "../../support/admin-client.ts";
import { BASE } from "../../support/cursor-client.ts";

function expectError(res: { status: number; body: unknown }, status: number, code: string, message?: string | RegExp) {
  const error = (res.body as ApiError).error;
  expect({ status: res.status, code: error?.code }).toEqual({ status, code });
  if (message !== undefined) expect(error.message).toMatch(message);
}

/** The worker with some secrets taken away (the test runtime sets them all). */
async function withoutSecrets(names: string[], path: string, init: RequestInit) {
  const bare: Record<string, unknown> = { ...env };
  for (const name of names) delete bare[name];
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, init), bare as unknown as typeof env, ctx);
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as unknown };
}

describe("admin API validation", () => {
  it("names every invalid field of a body in one invalid_argument message", async () => {
    const team = await createTeam();
    const res = await api<ApiError>("POST", `/api/v1/teams/${team.id}/users`, {
      body: { email: "not-an-email", role: "owner", requests_per_minute: 0 },
    });
    expectError(res, 400, "invalid_argument");
    const message = res.body.error.message;
    expect(message).toContain("body.email:");
    expect(message).toContain("body.role:");
    expect(message).toContain("body.requests_per_minute:");
    expect(message).not.toContain("not-an-email");
  });

  it("lists every invalid field of a body in `fields` with its path and reason, the same problems the message names", async () => {
    const team = await createTeam();
    const res = await api<ApiError>("POST", `/api/v1/teams/${team.id}/users`, { body: { email: "not-an-email", role: "owner" } });
    expectError(res, 400, "invalid_argument");
    const { message, fields } = res.body.error;
    expect(fields?.map((f) => f.path)).toEqual(["body.email", "body.role"]);
    expect(fields?.[0]?.message).toBe("Invalid email address");
    expect(fields?.[1]?.message).toMatch(/admin.*member/);
    expect(message).toBe(fields?.map((f) => `${f.path}: ${f.message}`).join("; "));
    expect(JSON.stringify(res.body)).not.toMatch(/not-an-email|owner/);
  });

  it("names a query parameter a route refuses after validation in `fields` as query.<name>", async () => {
    const res = await api<ApiError>("GET", "/api/v1/runs?before=not-a-cursor");
    expectError(res, 400, "invalid_argument", "query.before: not a cursor; pass the next_before of the previous page");
    expect(res.body.error.fields).toEqual([{ path: "query.before", message: "not a cursor; pass the next_before of the previous page" }]);
  });

  it("has no `fields` when the problem is not one of particular fields", async () => {
    for (const res of [
      await api<ApiError>("POST", "/api/v1/teams", { body: "{not json" }),
      await api<ApiError>("POST", "/api/v1/teams", { body: { name: "x".repeat(70 * 1024) } }),
      await api<ApiError>("GET", "/api/v1/nothing-here"),
    ]) {
      expect(res.body.error.code).toMatch(/^(invalid_argument|not_found)$/);
      expect(res.body.error).not.toHaveProperty("fields");
    }
  });

  it("refuses unknown fields, a missing body, malformed JSON and a body that is not JSON with invalid_argument", async () => {
    expectError(await api("POST", "/api/v1/teams", { body: { name: "x", colour: "red" } }), 400, "invalid_argument", /colour/);
    expectError(await api("POST", "/api/v1/teams", {}), 400, "invalid_argument");
    expectError(await api("POST", "/api/v1/teams", { body: "{not json" }), 400, "invalid_argument");
    expectError(
      await api("POST", "/api/v1/teams", { body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
      400,
      "invalid_argument",
      /JSON/,
    );
  });

  it("refuses a body larger than 64 KiB before reading it", async () => {
    expectError(await api("POST", "/api/v1/teams", { body: { name: "x".repeat(70 * 1024) } }), 400, "invalid_argument", /64 KiB/);
  });

  it("refuses a negative budget and an empty team name", async () => {
    expectError(await api("POST", "/api/v1/teams", { body: { name: "  " } }), 400, "invalid_argument", /body\.name/);
    expectError(
      await api("POST", "/api/v1/teams", { body: { name: "x", monthly_token_budget: -1 } }),
      400,
      "invalid_argument",
      /monthly_token_budget/,
    );
  });

  it("answers an unknown admin route with 404 not_found in the admin error shape", async () => {
    expectError(await api("GET", "/api/v1/nothing-here"), 404, "not_found");
    expectError(await api("PUT", "/api/v1/teams"), 404, "not_found");
  });
});

describe("admin API without ADMIN_TOKEN", () => {
  it("answers operator endpoints with 501 unimplemented, saying what to set", async () => {
    const res = await withoutSecrets(["ADMIN_TOKEN"], "/api/v1/teams", {
      method: "POST",
      headers: { authorization: `Bearer ${LOCAL_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    });
    expectError(res, 501, "unimplemented", /ADMIN_TOKEN/);
  });

  it("no longer accepts the old operator token, while user tokens and team admins keep working", async () => {
    const team = await createTeam();
    const admin = await member(team.id, "admin");
    const asOperator = await withoutSecrets(["ADMIN_TOKEN"], "/api/v1/me", { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    expectError(asOperator, 401, "unauthenticated");
    const users = await withoutSecrets(["ADMIN_TOKEN"], `/api/v1/teams/${team.id}/users`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    expect(users.status).toBe(200);
  });

  it("says what to configure when neither BYOK_TOKEN nor ADMIN_TOKEN is set", async () => {
    const res = await withoutSecrets(["ADMIN_TOKEN", "BYOK_TOKEN"], "/api/v1/me", { headers: { authorization: "Bearer anything" } });
    expectError(res, 401, "unauthenticated", /BYOK_TOKEN.*ADMIN_TOKEN/);
  });
});

describe("the OpenAPI document", () => {
  it("is served without a token at /api/openapi.json as OpenAPI 3.1 and lists every admin route", async () => {
    const res = await api<{ openapi: string; paths: Record<string, Record<string, unknown>> }>("GET", "/api/openapi.json", { token: null });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const documented = Object.entries(res.body.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const served = adminApi.routes
      .filter((r) => r.path.startsWith("/api/v1/") && r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, "{$1}")}`);
    expect(new Set(documented)).toEqual(new Set(served));
    expect(documented).toEqual(
      expect.arrayContaining([
        "GET /api/v1/me",
        "POST /api/v1/teams",
        "GET /api/v1/teams",
        "PATCH /api/v1/teams/{team_id}",
        "POST /api/v1/teams/{team_id}/users",
        "GET /api/v1/teams/{team_id}/users",
        "PATCH /api/v1/users/{user_id}",
        "DELETE /api/v1/users/{user_id}",
        "POST /api/v1/users/{user_id}/tokens",
        "GET /api/v1/users/{user_id}/tokens",
        "DELETE /api/v1/tokens/{token_id}",
      ]),
    );
  });
});
