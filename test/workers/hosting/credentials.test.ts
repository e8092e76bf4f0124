// Stored credentials through the admin API: their lifecycle, the role rules of
// every endpoint (operator, the team's admin, a member, another team's admin),
// isolation by id (404), the outbound rules, and keys that are only ever
// ciphertext at rest, bound to their team and credential.
import { beforeAll, describe, expect, it } from "vitest";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import worker from "../../../src/worker.ts";
import {
  api,
  type ApiError,
  type ApiResponse,
  expectStatus,
  LOCAL_TOKEN,
  type Member,
  type Team,
  teamWithPeople,
} from "../../support/admin-client.ts";
import { BASE } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { storeModel } from "../../support/stored-models.ts";

const KEY = "sk-credential-secret-abcd1234";

interface Credential {
  id: string;
  name: string;
  provider: string;
  base_url: string;
  scope: "user" | "team";
  key_last_four: string;
  team_id: string;
  owner_user_id: string | null;
  created_at: string;
}

let team: Team;
let admin: Member;
let memberA: Member;
let otherAdmin: Member;

beforeAll(async () => {
  ({ team, admin, member: memberA } = await teamWithPeople());
  ({ admin: otherAdmin } = await teamWithPeople());
});

function expectError(res: ApiResponse<unknown>, status: number, code: string): string {
  expect({ status: res.status, code: (res.body as ApiError).error?.code }).toEqual({ status, code });
  return (res.body as ApiError).error.message;
}

function credentialBody(scope: "user" | "team", extra: Record<string, unknown> = {}) {
  return {
    name: `cred ${crypto.randomUUID()}`,
    provider: "openai-chat",
    base_url: `${env.FAKE_PROVIDER_URL}/v1/`,
    api_key: KEY,
    scope,
    ...extra,
  };
}

async function createCredential(token: string, scope: "user" | "team", extra: Record<string, unknown> = {}): Promise<Credential> {
  return expectStatus(await api<Credential>("POST", "/api/v1/credentials", { token, body: credentialBody(scope, extra) }), 201);
}

async function listed(token: string): Promise<string[]> {
  return expectStatus(await api<{ credentials: Credential[] }>("GET", "/api/v1/credentials", { token }), 200).credentials.map((c) => c.id);
}

describe("credentials", () => {
  it("stores a credential without a key for a server that checks none: no envelope, has_key false, and its calls carry no key header", async () => {
    const scenario = await createScenario([chatText(["OK"])]);
    const body = { ...credentialBody("user", { headers: { "x-fake-scenario": scenario.id } }), api_key: undefined };
    const created = expectStatus(
      await api<Credential & { has_key: boolean }>("POST", "/api/v1/credentials", { token: memberA.token, body }),
      201,
    );
    expect(created).toMatchObject({ key_last_four: "", has_key: false });
    const row = await env.DB.prepare("SELECT encrypted_key FROM credentials WHERE id = ?")
      .bind(created.id)
      .first<{ encrypted_key: string }>();
    expect(row?.encrypted_key).toBe("");
    const emptyKey = expectStatus(
      await api<{ has_key: boolean }>("POST", "/api/v1/credentials", {
        token: memberA.token,
        body: credentialBody("user", { api_key: "  " }),
      }),
      201,
    );
    expect(emptyKey.has_key).toBe(false);

    const model = await storeModel(memberA.token, { credential_id: created.id, scope: "user" });
    const check = await exports.default.fetch(`${BASE}/byok/v1/models/${model.name}/check`, {
      method: "POST",
      headers: { authorization: `Bearer ${memberA.token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(await check.json()).toMatchObject({ ok: true, text: "OK" });
    const [request] = await scenario.requests(1);
    expect(request?.headers).not.toHaveProperty("authorization");

    // A rotation gives it a key.
    const rotated = expectStatus(
      await api<{ has_key: boolean; key_last_four: string }>("POST", `/api/v1/credentials/${created.id}/rotate`, {
        token: memberA.token,
        body: { api_key: "sk-added-later-5678" },
      }),
      200,
    );
    expect(rotated).toMatchObject({ has_key: true, key_last_four: "5678" });
  });

  it("stores a credential, shows only its last four characters, rotates its key and deletes it", async () => {
    const created = await createCredential(memberA.token, "user", { headers: { "x-team": "platform" } });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^cred_/),
      provider: "openai-chat",
      base_url: `${env.FAKE_PROVIDER_URL}/v1`,
      scope: "user",
      key_last_four: "1234",
      team_id: team.id,
      owner_user_id: memberA.user.id,
      header_names: ["x-team"],
    });
    expect(created).not.toHaveProperty("headers");
    const listing = await api("GET", "/api/v1/credentials", { token: memberA.token });
    expect(JSON.stringify(listing.body)).not.toContain(KEY);
    expect(await listed(memberA.token)).toContain(created.id);

    const row = await env.DB.prepare("SELECT encrypted_key, key_last_four FROM credentials WHERE id = ?")
      .bind(created.id)
      .first<{ encrypted_key: string }>();
    expect(row?.encrypted_key).not.toContain(KEY.slice(3, 20));
    const team_row = await env.DB.prepare("SELECT wrapped_data_key FROM teams WHERE id = ?")
      .bind(team.id)
      .first<{ wrapped_data_key: string }>();
    // A personal credential is sealed to its owner's personal key: the team's data key is not needed.
    expect(created).toMatchObject({ sealed_to_owner: true });
    expect(team_row?.wrapped_data_key).toBeNull();

    const rotated = expectStatus(
      await api<Credential>("POST", `/api/v1/credentials/${created.id}/rotate`, {
        token: memberA.token,
        body: { api_key: "sk-new-key-98765" },
      }),
      200,
    );
    expect(rotated).toMatchObject({ id: created.id, key_last_four: "8765" });
    expect(JSON.stringify(rotated)).not.toContain("sk-new-key");

    expect((await api("DELETE", `/api/v1/credentials/${created.id}`, { token: memberA.token })).status).toBe(204);
    expect(await listed(memberA.token)).not.toContain(created.id);
    expectError(await api("DELETE", `/api/v1/credentials/${created.id}`, { token: memberA.token }), 404, "not_found");
  });

  it("lets a member create only personal credentials and an admin team ones too; the operator none", async () => {
    expectError(await api("POST", "/api/v1/credentials", { token: memberA.token, body: credentialBody("team") }), 403, "permission_denied");
    const teamCred = await createCredential(admin.token, "team");
    expect(teamCred).toMatchObject({ scope: "team", owner_user_id: null });
    await createCredential(admin.token, "user");
    expectError(await api("POST", "/api/v1/credentials", { body: credentialBody("team") }), 403, "permission_denied");
  });

  it("lists each user their own and their team's credentials, the operator every one, another team none of them", async () => {
    const own = await createCredential(memberA.token, "user");
    const adminOwn = await createCredential(admin.token, "user");
    const shared = await createCredential(admin.token, "team");
    const memberSees = await listed(memberA.token);
    expect(memberSees).toEqual(expect.arrayContaining([own.id, shared.id]));
    expect(memberSees).not.toContain(adminOwn.id);
    const adminSees = await listed(admin.token);
    expect(adminSees).toEqual(expect.arrayContaining([adminOwn.id, shared.id]));
    expect(adminSees).not.toContain(own.id);
    const otherSees = await listed(otherAdmin.token);
    for (const id of [own.id, adminOwn.id, shared.id]) expect(otherSees).not.toContain(id);
    const operatorSees = expectStatus(
      await api<{ credentials: Credential[] }>("GET", `/api/v1/credentials?team_id=${team.id}`),
      200,
    ).credentials.map((c) => c.id);
    expect(operatorSees).toEqual(expect.arrayContaining([own.id, adminOwn.id, shared.id]));
    const localSees = await listed(LOCAL_TOKEN);
    for (const id of [own.id, adminOwn.id, shared.id]) expect(localSees).not.toContain(id);
  });

  it("answers rotate and delete by role: owner or team admin yes, a member on a team credential 403, the operator on a personal key 403, outside reach 404", async () => {
    const shared = await createCredential(admin.token, "team");
    const personal = await createCredential(memberA.token, "user");
    const rotate = (id: string, token: string) =>
      api("POST", `/api/v1/credentials/${id}/rotate`, { token, body: { api_key: "sk-rotated-000001" } });

    expectError(await rotate(shared.id, memberA.token), 403, "permission_denied");
    expectError(await api("DELETE", `/api/v1/credentials/${shared.id}`, { token: memberA.token }), 403, "permission_denied");
    // A personal credential is its owner's alone: the team's admin does not even see it.
    expectError(await rotate(personal.id, admin.token), 404, "not_found");
    expectError(await api("DELETE", `/api/v1/credentials/${personal.id}`, { token: admin.token }), 404, "not_found");
    for (const id of [shared.id, personal.id]) {
      expectError(await rotate(id, otherAdmin.token), 404, "not_found");
      expectError(await api("DELETE", `/api/v1/credentials/${id}`, { token: otherAdmin.token }), 404, "not_found");
      expectError(await rotate(id, LOCAL_TOKEN), 404, "not_found");
    }
    expectError(await rotate("cred_000000000000000000000000", admin.token), 404, "not_found");

    expect((await rotate(shared.id, admin.token)).status).toBe(200);
    expect((await rotate(personal.id, memberA.token)).status).toBe(200);
    // The operator manages every credential, but a personal one's key is sealed to its owner: only they enter a new one.
    expect((await rotate(personal.id, "test-admin-token")).status).toBe(403);
    expect((await rotate(shared.id, "test-admin-token")).status).toBe(200);
    expect((await api("DELETE", `/api/v1/credentials/${shared.id}`)).status).toBe(204);
  });

  it("refuses private base URLs unless allowed, reserved headers, and unknown fields, without echoing the key", async () => {
    const bare = (extra: Record<string, unknown>) =>
      api<ApiError>("POST", "/api/v1/credentials", { token: memberA.token, body: credentialBody("user", extra) });
    const reserved = await bare({ headers: { authorization: "Bearer x" } });
    expect(expectError(reserved, 400, "invalid_argument")).toContain('"authorization"');
    expect(reserved.body.error.fields?.map((f) => f.path)).toEqual(["body.headers"]);
    expect(expectError(await bare({ headers: { "X-Api-Key": "x" } }), 400, "invalid_argument")).toContain('"x-api-key"');
    const notUrl = await bare({ base_url: "not a url" });
    expect(expectError(notUrl, 400, "invalid_argument")).toContain("body.base_url");
    expect(notUrl.body.error.fields?.map((f) => f.path)).toEqual(["body.base_url"]);
    const unknown = await bare({ api_key: "sk-secret-do-not-echo", extra: true });
    expect(expectError(unknown, 400, "invalid_argument")).not.toContain("sk-secret-do-not-echo");
    expectError(await bare({ provider: "gemini" }), 400, "invalid_argument");

    // Without BYOK_ALLOW_PRIVATE_UPSTREAMS a loopback base URL is refused, in any spelling.
    const strict = await withEnv({ BYOK_ALLOW_PRIVATE_UPSTREAMS: "false" }, "POST", "/api/v1/credentials", memberA.token, {
      ...credentialBody("user"),
      base_url: "https://2130706433/v1",
    });
    expectError(strict, 400, "invalid_argument");
    // The refusal says how the server would allow it: it is read in the dashboard, far from the server's files.
    const field = (strict.body as ApiError).error.fields?.find((f) => f.path === "body.base_url");
    expect(field?.message).toMatch(/127\.0\.0\.1: a loopback address.*BYOK_ALLOW_PRIVATE_UPSTREAMS=true: a local npm run dev sets it/);
  });

  it("answers 412 failed_precondition without KEY_ENCRYPTION_KEY and stores nothing", async () => {
    const { team: fresh, admin: freshAdmin } = await teamWithPeople();
    const res = await withEnv({ KEY_ENCRYPTION_KEY: undefined }, "POST", "/api/v1/credentials", freshAdmin.token, credentialBody("team"));
    expect(expectError(res, 412, "failed_precondition")).toContain("KEY_ENCRYPTION_KEY");
    const rows = await env.DB.prepare("SELECT count(*) AS n FROM credentials WHERE team_id = ?").bind(fresh.id).first<{ n: number }>();
    expect(rows?.n).toBe(0);
  });
});

/** The worker with some bindings changed (the test runtime sets them for every test). */
async function withEnv(changes: Record<string, string | undefined>, method: string, path: string, token: string, body: unknown) {
  const changed: Record<string, unknown> = { ...env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete changed[name];
    else changed[name] = value;
  }
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
    changed as unknown as typeof env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as unknown };
}
