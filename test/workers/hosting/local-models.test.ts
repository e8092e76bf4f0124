// The single user (BYOK_TOKEN) keeps credentials and models in D1 through the same
// admin API as a hosted member: encrypted the same way, listed beside its read-only
// BYOK_MODELS entries, tested, enabled and disabled, and run from Cursor. Each test
// deletes what it stored, since the runner's D1 is shared with other files
// (docs/testing.md#shared-runners) and they count the single user's models.
import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { api, type ApiError, expectStatus, LOCAL_TOKEN, OPERATOR_TOKEN, teamWithPeople } from "../../support/admin-client.ts";
import { startTurn, usableModelNames } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { type StoredModel, storeCredential, storeModel } from "../../support/stored-models.ts";

const CONFIGURED = [
  "fake-model",
  "fake-small",
  "fake-responses",
  "fake-anthropic",
  "fake-stall",
  "fake-fallback",
  "fake-roles",
  "fake-text",
];

const stored: string[] = [];
afterEach(async () => {
  for (const id of stored.splice(0)) expectStatus(await api("DELETE", `/api/v1/credentials/${id}`, { token: LOCAL_TOKEN }), 204);
});

async function localCredential(apiKey: string, extra: Record<string, unknown> = {}) {
  const credential = await storeCredential(LOCAL_TOKEN, "user", apiKey, extra);
  stored.push(credential.id);
  return credential;
}

interface LocalList {
  models: StoredModel[];
  configured?: { name: string; provider: string; model: string; context_window: number }[];
  configured_problems?: string[];
}

describe("the single user's stored credentials and models", () => {
  it("stores a personal credential encrypted, lists it with its last four only, and refuses scope team", async () => {
    const key = `sk-local-${crypto.randomUUID()}-9876`;
    const credential = await localCredential(key);
    expect(credential).toMatchObject({ scope: "user", key_last_four: "9876", owner_user_id: "local" });
    const listed = expectStatus(await api<{ credentials: { id: string }[] }>("GET", "/api/v1/credentials", { token: LOCAL_TOKEN }), 200);
    expect(listed.credentials.map((c) => c.id)).toContain(credential.id);
    const row = await env.DB.prepare("SELECT * FROM credentials WHERE id = ?").bind(credential.id).first<{ encrypted_key: string }>();
    // An envelope (base64url, much longer than the key's last four), and the key in no column.
    expect(row?.encrypted_key.length).toBeGreaterThan(key.length);
    expect(JSON.stringify(row)).not.toContain(key);

    const team = await api<ApiError>("POST", "/api/v1/credentials", {
      token: LOCAL_TOKEN,
      body: { name: "t", provider: "openai-chat", base_url: `${env.FAKE_PROVIDER_URL}/v1`, api_key: "sk-x-12345678", scope: "team" },
    });
    expect(team.status).toBe(400);
    expect(team.body.error.message).toContain('scope "user"');
  });

  it("lists its BYOK_MODELS entries as read-only beside its stored models, and runs a Cursor turn on a stored one", async () => {
    const key = `sk-local-turn-${crypto.randomUUID()}`;
    const credential = await localCredential(key);
    const model = await storeModel(LOCAL_TOKEN, { credential_id: credential.id, scope: "user", model: "local-upstream" });

    const list = expectStatus(await api<LocalList>("GET", "/api/v1/models", { token: LOCAL_TOKEN }), 200);
    expect(list.models.map((m) => m.name)).toContain(model.name);
    expect(list.configured?.map((m) => m.name)).toEqual(CONFIGURED);
    expect(list.configured?.[1]).toMatchObject({ provider: "openai-chat", model: "fake-2", context_window: 32000 });
    expect(JSON.stringify(list)).not.toContain("api_key");
    const usable = await usableModelNames(LOCAL_TOKEN);
    expect(usable.slice(0, CONFIGURED.length)).toEqual(CONFIGURED);
    expect(usable).toContain(model.name);

    const scenario = await createScenario([chatText(["stored ", "locally"])]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `hi ${scenario.marker}`, model: model.name });
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("stored locally");
    const [request] = await scenario.requests(1);
    expect(request?.headers.authorization).toBe(`Bearer ${key}`);
    expect(JSON.parse(request!.body).model).toBe("local-upstream");
  });

  it("disables and enables a stored model in Cursor's list, and tests it against its provider", async () => {
    const scenario = await createScenario([chatText(["pong"], { usage: { prompt_tokens: 5, completion_tokens: 1 } })]);
    const credential = await localCredential(`sk-local-toggle-${crypto.randomUUID()}`, { headers: { "x-fake-scenario": scenario.id } });
    const model = await storeModel(LOCAL_TOKEN, { credential_id: credential.id, scope: "user" });
    const patch = (enabled: boolean) => api("PATCH", `/api/v1/models/${model.id}`, { token: LOCAL_TOKEN, body: { enabled } });

    expectStatus(await patch(false), 200);
    expect(await usableModelNames(LOCAL_TOKEN)).not.toContain(model.name);
    expectStatus(await patch(true), 200);
    expect(await usableModelNames(LOCAL_TOKEN)).toContain(model.name);

    const tested = expectStatus(await api<{ ok: boolean }>("POST", `/api/v1/models/${model.id}/test`, { token: LOCAL_TOKEN }), 200);
    expect(tested).toMatchObject({ ok: true, output_tokens: 1 });
  });

  it("refuses a stored model named like a BYOK_MODELS entry, on create and on rename", async () => {
    const credential = await localCredential(`sk-local-names-${crypto.randomUUID()}`);
    const clash = await api<ApiError>("POST", "/api/v1/models", {
      token: LOCAL_TOKEN,
      body: { name: "fake-model", credential_id: credential.id, model: "m", scope: "user" },
    });
    expect({ status: clash.status, code: clash.body.error.code }).toEqual({ status: 409, code: "already_exists" });
    expect(clash.body.error.message).toContain("BYOK_MODELS");
    const model = await storeModel(LOCAL_TOKEN, { credential_id: credential.id, scope: "user" });
    const rename = await api<ApiError>("PATCH", `/api/v1/models/${model.id}`, { token: LOCAL_TOKEN, body: { name: "fake-small" } });
    expect(rename.status).toBe(409);
  });

  it("keeps the single user's credentials and hosted users' apart, and its team out of the operator's team list", async () => {
    const local = await localCredential(`sk-local-apart-${crypto.randomUUID()}`);
    const { admin } = await teamWithPeople();
    const hosted = await storeCredential(admin.token, "team", `sk-hosted-apart-${crypto.randomUUID()}`);
    for (const [token, id] of [
      [admin.token, local.id],
      [LOCAL_TOKEN, hosted.id],
    ] as const) {
      const res = await api("POST", `/api/v1/credentials/${id}/rotate`, { token, body: { api_key: "sk-stolen-000000" } });
      expect(res.status).toBe(404);
    }
    const modelOnHosted = await api("POST", "/api/v1/models", {
      token: LOCAL_TOKEN,
      body: { name: `m-${crypto.randomUUID()}`, credential_id: hosted.id, model: "m", scope: "user" },
    });
    expect(modelOnHosted.status).toBe(404);
    const teams = expectStatus(await api<{ teams: { id: string }[] }>("GET", "/api/v1/teams", { token: OPERATOR_TOKEN }), 200);
    expect(teams.teams.map((t) => t.id)).not.toContain(local.team_id);
  });

  it("reaches neither the single user's team nor its user through the operator's routes, and no token acts as local", async () => {
    const local = await localCredential(`sk-local-hidden-${crypto.randomUUID()}`);
    for (const [method, path, body] of [
      ["GET", `/api/v1/teams/${local.team_id}`, undefined],
      ["PATCH", `/api/v1/teams/${local.team_id}`, { monthly_token_budget: 1 }],
      ["POST", `/api/v1/teams/${local.team_id}/users`, { email: `intruder-${crypto.randomUUID()}@example.com`, role: "member" }],
      ["GET", "/api/v1/users/local", undefined],
      ["POST", "/api/v1/users/local/tokens", { name: "as local" }],
    ] as const) {
      const res = await api(method, path, { token: OPERATOR_TOKEN, ...(body && { body }) });
      expect({ path, method, status: res.status }).toEqual({ path, method, status: 404 });
    }
    // A token row for "local" put straight into D1 (as a restored backup might hold) opens nothing.
    const token = `byok_${"a".repeat(43)}`;
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    await env.DB.prepare("INSERT INTO tokens (id, user_id, name, token_hash, created_at_ms) VALUES (?, 'local', 'planted', ?, ?)")
      .bind(`tok_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`, hash, Date.now())
      .run();
    expect((await api("GET", "/api/v1/me", { token })).status).toBe(401);
    const named = await api("POST", "/api/v1/teams", { token: OPERATOR_TOKEN, body: { name: "local (single user)" } });
    expect(named.status).toBe(409);
  });

  it("prices a BYOK_MODELS entry's run at nothing, even when a stored model of the same name has prices", async () => {
    const credential = await localCredential(`sk-local-prices-${crypto.randomUUID()}`);
    const model = await storeModel(LOCAL_TOKEN, {
      credential_id: credential.id,
      scope: "user",
      price_input_per_mtok: 1_000,
      price_output_per_mtok: 1_000,
    });
    // As if BYOK_MODELS had gained the name after the model was stored (the API refuses it now).
    await env.DB.prepare("UPDATE models SET name = 'fake-small' WHERE id = ?").bind(model.id).run();
    expectStatus(await api("PATCH", `/api/v1/models/${model.id}`, { token: LOCAL_TOKEN, body: { max_output_tokens: 100 } }), 200);
    const day = new Date().toISOString().slice(0, 10);
    const costBefore = await smallCost(day);
    const scenario = await createScenario([chatText(["priced?"], { usage: { prompt_tokens: 1000, completion_tokens: 1000 } })]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `cost ${scenario.marker}`, model: "fake-small" });
    expect(await reader.end()).toEqual({});
    // The run's usage is written after it ends; the ledger in the same batch.
    await vi.waitFor(
      async () => expect(await env.DB.prepare("SELECT 1 FROM usage WHERE conversation_id = ?").bind(conversationId).first()).not.toBeNull(),
      { timeout: 5_000 },
    );
    expect(await smallCost(day)).toBe(costBefore);
  });
});

async function smallCost(day: string): Promise<number> {
  const row = await env.DB.prepare("SELECT cost_usd FROM usage_ledger WHERE day = ? AND principal = 'local' AND model = 'fake-small'")
    .bind(day)
    .first<{ cost_usd: number }>();
  return row?.cost_usd ?? 0;
}
