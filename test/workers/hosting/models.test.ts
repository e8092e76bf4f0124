// Stored models through the admin API: lifecycle, the role rules of every
// endpoint, names unique within what one user sees, which credentials a model may
// use, isolation by id (404), and the model test endpoint (measured against the
// fake provider with the credential's own key, rate limited per user).
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import {
  api,
  type ApiError,
  type ApiResponse,
  expectStatus,
  LOCAL_TOKEN,
  type Member,
  teamWithPeople,
} from "../../support/admin-client.ts";
import { chatText, createScenario, httpError } from "../../support/fake-provider.ts";
import { modelNames, type StoredCredential, type StoredModel, storeCredential, storeModel } from "../../support/stored-models.ts";

const TEAM_KEY = "sk-team-key-for-models-7777";
const PERSONAL_KEY = "sk-personal-key-models-5555";

let admin: Member;
let memberA: Member;
let otherAdmin: Member;
let teamCred: StoredCredential;
let personalCred: StoredCredential;
let otherCred: StoredCredential;

beforeAll(async () => {
  ({ admin, member: memberA } = await teamWithPeople());
  ({ admin: otherAdmin } = await teamWithPeople());
  teamCred = await storeCredential(admin.token, "team", TEAM_KEY);
  personalCred = await storeCredential(memberA.token, "user", PERSONAL_KEY);
  otherCred = await storeCredential(otherAdmin.token, "team", "sk-other-team-key-0000");
});

function expectError(res: ApiResponse<unknown>, status: number, code: string): string {
  expect({ status: res.status, code: (res.body as ApiError).error?.code }).toEqual({ status, code });
  return (res.body as ApiError).error.message;
}

const patch = (id: string, token: string, body: unknown) => api<StoredModel>("PATCH", `/api/v1/models/${id}`, { token, body });
const remove = (id: string, token: string) => api("DELETE", `/api/v1/models/${id}`, { token });
const test = (id: string, token: string) => api<Record<string, unknown>>("POST", `/api/v1/models/${id}/test`, { token });

describe("models", () => {
  it("creates a model with the settings of a BYOK_MODELS entry and prices, changes it and deletes it", async () => {
    const created = await storeModel(memberA.token, {
      credential_id: personalCred.id,
      scope: "user",
      context_window: 64000,
      reasoning_effort: "medium",
      headers: { "x-extra": "1" },
      extra_body: { temperature: 0 },
      vision: false,
      price_input_per_mtok: 2,
      price_output_per_mtok: 8,
    });
    expect(created).toMatchObject({
      id: expect.stringMatching(/^mdl_/),
      scope: "user",
      credential_id: personalCred.id,
      model: "fake-hosted",
      context_window: 64000,
      reasoning_effort: "medium",
      header_names: ["x-extra"],
      extra_body: { temperature: 0 },
      vision: false,
      enabled: true,
      price_input_per_mtok: 2,
      price_output_per_mtok: 8,
      price_cache_read_per_mtok: null,
      owner_user_id: memberA.user.id,
    });
    expect(created).not.toHaveProperty("headers");
    const renamed = expectStatus(
      await patch(created.id, memberA.token, { name: `renamed-${created.id}`, enabled: false, reasoning_effort: null }),
      200,
    );
    expect(renamed).toMatchObject({ name: `renamed-${created.id}`, enabled: false, reasoning_effort: null, context_window: 64000 });
    expect(await modelNames(memberA.token)).toContain(renamed.name);
    expect((await remove(created.id, memberA.token)).status).toBe(204);
    expect(await modelNames(memberA.token)).not.toContain(renamed.name);
    expectError(await remove(created.id, memberA.token), 404, "not_found");
  });

  it("answers every endpoint by role: the team's model is the admins' to change, a personal one its owner's alone", async () => {
    expectError(
      await api("POST", "/api/v1/models", {
        token: memberA.token,
        body: { name: "x", credential_id: teamCred.id, model: "m", scope: "team" },
      }),
      403,
      "permission_denied",
    );
    expectError(
      await api("POST", "/api/v1/models", { body: { name: "x", credential_id: teamCred.id, model: "m", scope: "team" } }),
      403,
      "permission_denied",
    );
    const shared = await storeModel(admin.token, { credential_id: teamCred.id, scope: "team" });
    const personal = await storeModel(memberA.token, { credential_id: teamCred.id, scope: "user" });

    expectError(await patch(shared.id, memberA.token, { enabled: false }), 403, "permission_denied");
    expectError(await remove(shared.id, memberA.token), 403, "permission_denied");
    expectError(await patch(personal.id, admin.token, { enabled: false }), 404, "not_found");
    expectError(await remove(personal.id, admin.token), 404, "not_found");
    for (const id of [shared.id, personal.id]) {
      for (const token of [otherAdmin.token, LOCAL_TOKEN]) {
        expectError(await patch(id, token, { enabled: false }), 404, "not_found");
        expectError(await remove(id, token), 404, "not_found");
        expectError(await test(id, token), 404, "not_found");
      }
    }
    expect(await modelNames(otherAdmin.token)).not.toEqual(expect.arrayContaining([shared.name]));
    expect(await modelNames(admin.token)).not.toContain(personal.name);
    expect(await modelNames(memberA.token)).toEqual(expect.arrayContaining([shared.name, personal.name]));
    const localSees = await modelNames(LOCAL_TOKEN);
    for (const name of [shared.name, personal.name]) expect(localSees).not.toContain(name);
    expect(await modelNames("test-admin-token")).toEqual(expect.arrayContaining([shared.name, personal.name]));

    expect(expectStatus(await patch(shared.id, admin.token, { max_output_tokens: 512 }), 200).max_output_tokens).toBe(512);
    // The operator manages every model, but does not call providers.
    expect((await patch(personal.id, "test-admin-token", { enabled: true })).status).toBe(200);
    expectError(await test(personal.id, "test-admin-token"), 403, "permission_denied");
    expect((await remove(shared.id, "test-admin-token")).status).toBe(204);
  });

  it("keeps names unique within what one user sees: their own and their team's", async () => {
    const { admin: a, member: m } = await teamWithPeople();
    const cred = await storeCredential(a.token, "team", TEAM_KEY);
    const shared = await storeModel(a.token, { name: "shared-name", credential_id: cred.id, scope: "team" });
    expectError(
      await api("POST", "/api/v1/models", {
        token: m.token,
        body: { name: "shared-name", credential_id: cred.id, model: "x", scope: "user" },
      }),
      409,
      "already_exists",
    );
    const mine = await storeModel(m.token, { name: "mine", credential_id: cred.id, scope: "user" });
    // A team model may not take a name one of its members already sees.
    expectError(
      await api("POST", "/api/v1/models", { token: a.token, body: { name: "mine", credential_id: cred.id, model: "x", scope: "team" } }),
      409,
      "already_exists",
    );
    // The admin's own personal model may share a name with another member's personal one: nobody sees both.
    await storeModel(a.token, { name: "mine", credential_id: cred.id, scope: "user" });
    expectError(await patch(mine.id, m.token, { name: "shared-name" }), 409, "already_exists");
    expectError(await patch(shared.id, a.token, { name: "mine" }), 409, "already_exists");
    expect(expectStatus(await patch(mine.id, m.token, { name: "mine" }), 200).name).toBe("mine");
    // Another team's names are not in the way.
    const other = await teamWithPeople();
    const otherTeamCred = await storeCredential(other.admin.token, "team", TEAM_KEY);
    await storeModel(other.admin.token, { name: "shared-name", credential_id: otherTeamCred.id, scope: "team" });
  });

  it("runs a model only on a credential its users may use: never another team's, nor a personal one for the team", async () => {
    const body = (credential_id: string, scope: "user" | "team") => ({
      name: `n-${crypto.randomUUID()}`,
      credential_id,
      model: "x",
      scope,
    });
    expectError(await api("POST", "/api/v1/models", { token: memberA.token, body: body(otherCred.id, "user") }), 404, "not_found");
    expectError(await api("POST", "/api/v1/models", { token: admin.token, body: body(personalCred.id, "user") }), 404, "not_found");
    const adminPersonal = await storeCredential(admin.token, "user", "sk-admin-personal-1111");
    const onPersonal = await api<ApiError>("POST", "/api/v1/models", { token: admin.token, body: body(adminPersonal.id, "team") });
    expectError(onPersonal, 400, "invalid_argument");
    expect(onPersonal.body.error.fields?.map((f) => f.path)).toEqual(["body.credential_id"]);
    expectError(
      await api("POST", "/api/v1/models", { token: memberA.token, body: body("cred_000000000000000000000000", "user") }),
      404,
      "not_found",
    );
    const mine = await storeModel(memberA.token, { credential_id: personalCred.id, scope: "user" });
    expectError(await patch(mine.id, memberA.token, { credential_id: otherCred.id }), 404, "not_found");
    expectError(
      await api("POST", "/api/v1/models", { token: memberA.token, body: { ...body(teamCred.id, "user"), headers: { Host: "x" } } }),
      400,
      "invalid_argument",
    );
  });

  it("stops listing the models on a credential once it is deleted", async () => {
    const cred = await storeCredential(memberA.token, "user", PERSONAL_KEY);
    const model = await storeModel(memberA.token, { credential_id: cred.id, scope: "user" });
    expect(await modelNames(memberA.token)).toContain(model.name);
    expect((await api("DELETE", `/api/v1/credentials/${cred.id}`, { token: memberA.token })).status).toBe(204);
    expect(await modelNames(memberA.token)).not.toContain(model.name);
    expectError(await test(model.id, memberA.token), 404, "not_found");
    // The model went with its credential, so its name is free again.
    const fresh = await storeCredential(memberA.token, "user", PERSONAL_KEY);
    const again = await storeModel(memberA.token, { name: model.name, credential_id: fresh.id, scope: "user" });
    expect(again.name).toBe(model.name);
  });
});

describe("the OpenAPI document", () => {
  it("lists the credentials and models routes", async () => {
    const doc = expectStatus(
      await api<{ paths: Record<string, Record<string, unknown>> }>("GET", "/api/openapi.json", { token: null }),
      200,
    );
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented).toEqual(
      expect.arrayContaining([
        "POST /api/v1/credentials",
        "GET /api/v1/credentials",
        "POST /api/v1/credentials/{credential_id}/rotate",
        "DELETE /api/v1/credentials/{credential_id}",
        "POST /api/v1/models",
        "GET /api/v1/models",
        "PATCH /api/v1/models/{model_id}",
        "DELETE /api/v1/models/{model_id}",
        "POST /api/v1/models/{model_id}/test",
      ]),
    );
  });
});

describe("model test endpoint", () => {
  it("measures a stored model with its credential's key and reports the provider's error without it", async () => {
    const { admin: a, member: m } = await teamWithPeople();
    const scenario = await createScenario([
      chatText(["O", "K"], { usage: { prompt_tokens: 5, completion_tokens: 2 } }),
      httpError(401, `Incorrect API key provided: ${TEAM_KEY}`),
    ]);
    const cred = await storeCredential(a.token, "team", TEAM_KEY, { headers: { "x-fake-scenario": scenario.id } });
    const model = await storeModel(a.token, { credential_id: cred.id, scope: "team" });

    const ok = expectStatus(await test(model.id, m.token), 200);
    expect(ok).toMatchObject({ ok: true, ttft_ms: expect.any(Number), output_tokens: 2 });
    expect(ok).toHaveProperty("tokens_per_second");
    const [request] = await scenario.requests(1);
    expect(request?.headers.authorization).toBe(`Bearer ${TEAM_KEY}`);
    expect(JSON.parse(request!.body).model).toBe("fake-hosted");

    const failed = expectStatus(await test(model.id, m.token), 200);
    expect(failed).toMatchObject({ ok: false, error: { kind: "authorization", status: 401 } });
    expect(JSON.stringify(failed)).not.toContain(TEAM_KEY);
  });

  it("allows six tests a minute per user, then answers 429 resource_exhausted", async () => {
    const { admin: a, member: m } = await teamWithPeople();
    const scenario = await createScenario(Array.from({ length: 6 }, () => chatText(["OK"])));
    const cred = await storeCredential(a.token, "team", TEAM_KEY, { headers: { "x-fake-scenario": scenario.id } });
    const model = await storeModel(a.token, { credential_id: cred.id, scope: "team" });
    for (let i = 0; i < 6; i++) expect(expectStatus(await test(model.id, m.token), 200).ok).toBe(true);
    expect(expectError(await test(model.id, m.token), 429, "resource_exhausted")).toMatch(/6 model tests per minute/);
    // The limit is per user: the admin still has theirs.
    expect((await test(model.id, a.token)).status).not.toBe(429);
  });

  it("says clearly when a stored key does not open: altered ciphertext, or a row moved to another team", async () => {
    const { admin: a } = await teamWithPeople();
    const cred = await storeCredential(a.token, "team", TEAM_KEY);
    const model = await storeModel(a.token, { credential_id: cred.id, scope: "team" });
    const row = await env.DB.prepare("SELECT encrypted_key FROM credentials WHERE id = ?").bind(cred.id).first<{ encrypted_key: string }>();
    const original = row!.encrypted_key;
    const flipped = original.slice(0, -6) + (original.at(-6) === "A" ? "B" : "A") + original.slice(-5);
    await env.DB.prepare("UPDATE credentials SET encrypted_key = ? WHERE id = ?").bind(flipped, cred.id).run();
    const altered = expectStatus(await test(model.id, a.token), 200);
    expect(altered).toMatchObject({ ok: false, error: { kind: "credential", message: expect.stringMatching(/does not verify/) } });

    // The intact row, copied into another team: that team's data key does not open it.
    await env.DB.prepare("UPDATE credentials SET encrypted_key = ? WHERE id = ?").bind(original, cred.id).run();
    const thief = await teamWithPeople();
    await storeCredential(thief.admin.token, "team", "sk-thief-team-key-2222"); // gives the thief's team a data key
    await env.DB.prepare("UPDATE credentials SET team_id = ? WHERE id = ?").bind(thief.team.id, cred.id).run();
    await env.DB.prepare("UPDATE models SET team_id = ? WHERE id = ?").bind(thief.team.id, model.id).run();
    const moved = expectStatus(await test(model.id, thief.admin.token), 200);
    expect(moved).toMatchObject({ ok: false, error: { kind: "credential", message: expect.stringMatching(/another data key/) } });
    expect(JSON.stringify([altered, moved])).not.toContain(TEAM_KEY);
  });
});
