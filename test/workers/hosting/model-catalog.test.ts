// What a hosted user's Cursor sees and may run: exactly their own and their
// team's enabled stored models; a turn on one reaches the provider with that
// credential's key, its cost lands in the usage ledger, and another team's
// model is refused. The single-user principal keeps BYOK_MODELS.
import { describe, expect, it, vi } from "vitest";
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { setModelCatalogClock } from "../../../src/hosting/config/principal-models.ts";
import { conversationName } from "../../../src/core/object-names.ts";
import { fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { AvailableModelsResponseSchema, GetDefaultModelResponseSchema } from "../../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { api, LOCAL_TOKEN, teamWithPeople } from "../../support/admin-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { BASE, startTurn, usableModelNames } from "../../support/cursor-client.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

async function unary<D extends DescMessage>(path: string, schema: D, token: string) {
  const res = await exports.default.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/proto" },
    body: new Uint8Array(0),
  });
  expect(res.status).toBe(200);
  return fromBinary(schema, new Uint8Array(await res.arrayBuffer()));
}

describe("a hosted user's models in Cursor", () => {
  it("lists exactly the user's own and their team's enabled models on live credentials", async () => {
    const { admin, member } = await teamWithPeople();
    const other = await teamWithPeople();
    const teamCred = await storeCredential(admin.token, "team", "sk-catalog-team-1111");
    const shared = await storeModel(admin.token, { credential_id: teamCred.id, scope: "team", context_window: 64000 });
    const mine = await storeModel(member.token, { credential_id: teamCred.id, scope: "user" });
    const adminsOwn = await storeModel(admin.token, { credential_id: teamCred.id, scope: "user" });
    await storeModel(member.token, { credential_id: teamCred.id, scope: "user", enabled: false });
    const doomedCred = await storeCredential(member.token, "user", "sk-catalog-doomed-2222");
    const doomed = await storeModel(member.token, { credential_id: doomedCred.id, scope: "user" });
    const otherCred = await storeCredential(other.admin.token, "team", "sk-catalog-other-3333");
    await storeModel(other.admin.token, { credential_id: otherCred.id, scope: "team" });

    expect(await usableModelNames(member.token)).toEqual([shared.name, mine.name, doomed.name]);
    expect(await usableModelNames(admin.token)).toEqual([shared.name, adminsOwn.name]);
    const available = await unary("/aiserver.v1.AiService/AvailableModels", AvailableModelsResponseSchema, member.token);
    expect(available.modelNames).toEqual([shared.name, mine.name, doomed.name]);
    expect(available.models[0]?.contextTokenLimit).toBe(64000);
    const defaultModel = await unary("/aiserver.v1.AiService/GetDefaultModel", GetDefaultModelResponseSchema, member.token);
    expect(defaultModel.model).toBe(shared.name);

    expect((await api("DELETE", `/api/v1/credentials/${doomedCred.id}`, { token: member.token })).status).toBe(204);
    expect(await usableModelNames(member.token)).toEqual([shared.name, mine.name]);
    // The single-user principal keeps BYOK_MODELS, first.
    expect((await usableModelNames(LOCAL_TOKEN)).slice(0, 5)).toEqual([
      "fake-model",
      "fake-small",
      "fake-responses",
      "fake-anthropic",
      "fake-stall",
    ]);
  });

  it("reuses a user's model list for less than 5 s, so a change made elsewhere shows within 5 s", async () => {
    const { admin } = await teamWithPeople();
    const cred = await storeCredential(admin.token, "team", "sk-cache-key-7777");
    const model = await storeModel(admin.token, { credential_id: cred.id, scope: "team" });
    let now = Date.now();
    setModelCatalogClock(() => now);
    try {
      expect(await usableModelNames(admin.token)).toEqual([model.name]);
      // As another isolate would: straight in D1, without clearing this isolate's cache.
      await env.DB.prepare("UPDATE models SET enabled = 0 WHERE id = ?").bind(model.id).run();
      now += 4_900;
      expect(await usableModelNames(admin.token)).toEqual([model.name]);
      now += 100;
      expect(await usableModelNames(admin.token)).toEqual([]);
    } finally {
      setModelCatalogClock(Date.now);
    }
  });

  it("runs a turn on a team model with that credential's key and prices it in the usage ledger", async () => {
    const { team, admin, member } = await teamWithPeople();
    const key = `sk-turn-key-${crypto.randomUUID()}`;
    const cred = await storeCredential(admin.token, "team", key);
    const model = await storeModel(admin.token, {
      credential_id: cred.id,
      scope: "team",
      model: "provider-model-x",
      price_input_per_mtok: 3,
      price_output_per_mtok: 15,
    });
    const scenario = await createScenario([chatText(["hosted ", "answer"], { usage: { prompt_tokens: 1000, completion_tokens: 100 } })]);
    const auth = { authorization: `Bearer ${member.token}` };
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn(
      { conversationId, text: `hello ${scenario.marker}`, model: model.name },
      { headers: auth },
    );
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("hosted answer");

    const [request] = await scenario.requests(1);
    expect(request?.headers.authorization).toBe(`Bearer ${key}`);
    expect(JSON.parse(request!.body).model).toBe("provider-model-x");

    await vi.waitFor(
      async () => {
        const run = await env.DB.prepare("SELECT principal, team_id, model FROM usage WHERE run_id LIKE ?").bind(`${requestId}:%`).first();
        expect(run).toEqual({ principal: member.user.id, team_id: team.id, model: model.name });
      },
      { timeout: 5_000 },
    );
    const ledger = await env.DB.prepare("SELECT cost_usd FROM usage_ledger WHERE principal = ? AND model = ?")
      .bind(member.user.id, model.name)
      .first<{ cost_usd: number }>();
    // 1000 input tokens at $3 and 100 output tokens at $15 per million.
    expect(ledger?.cost_usd).toBeCloseTo(0.0045, 10);
    // The key is in no row of the conversation object's storage, nor in D1 in plain text.
    const stub = env.CONVERSATION.getByName(conversationName(member.user.id, conversationId));
    const dump = await runInDurableObject(stub, (_instance, state) => {
      // Not the runtime's own _cf_ tables (the run's recovery alarm lives there), which may not be read.
      const tables = state.storage.sql
        .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '_cf_%'")
        .toArray();
      return JSON.stringify(tables.map(({ name }) => state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray()));
    });
    expect(dump).toContain("hosted answer");
    expect(dump).not.toContain(key);
    const d1Rows = await env.DB.prepare("SELECT * FROM credentials WHERE id = ?").bind(cred.id).all();
    expect(JSON.stringify(d1Rows.results)).not.toContain(key);
  });

  it("refuses a run on another team's model with not_found, before any provider call", async () => {
    const owners = await teamWithPeople();
    const outsider = await teamWithPeople();
    const cred = await storeCredential(owners.admin.token, "team", "sk-owners-only-4444");
    const model = await storeModel(owners.admin.token, { credential_id: cred.id, scope: "team" });
    const scenario = await createScenario([chatText(["never"])]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `steal ${scenario.marker}`, model: model.name },
      { headers: { authorization: `Bearer ${outsider.member.token}` } },
    );
    const end = await reader.end();
    expect(end.error?.code).toBe("not_found");
    expect(end.error?.message).toContain(model.name);
    expect(await scenario.requests()).toEqual([]);
  });

  it("fails a run clearly when the stored key was altered, and never sends it", async () => {
    const { admin } = await teamWithPeople();
    const cred = await storeCredential(admin.token, "team", "sk-altered-key-5555");
    const model = await storeModel(admin.token, { credential_id: cred.id, scope: "team" });
    const row = await env.DB.prepare("SELECT encrypted_key FROM credentials WHERE id = ?").bind(cred.id).first<{ encrypted_key: string }>();
    const text = row!.encrypted_key;
    await env.DB.prepare("UPDATE credentials SET encrypted_key = ? WHERE id = ?")
      .bind(text.slice(0, -4) + (text.at(-4) === "A" ? "B" : "A") + text.slice(-3), cred.id)
      .run();
    const scenario = await createScenario([chatText(["never"])]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `go ${scenario.marker}`, model: model.name },
      { headers: { authorization: `Bearer ${admin.token}` } },
    );
    const end = await reader.end();
    expect(end.error?.code).toBe("data_loss");
    expect(end.error?.message).toMatch(/does not verify/);
    expect(await scenario.requests()).toEqual([]);
  });

  it("checks a stored model through the model check endpoint too", async () => {
    const { admin } = await teamWithPeople();
    const scenario = await createScenario([chatText(["OK"])]);
    const cred = await storeCredential(admin.token, "team", "sk-check-endpoint-6666", { headers: { "x-fake-scenario": scenario.id } });
    const model = await storeModel(admin.token, { credential_id: cred.id, scope: "team" });
    const res = await exports.default.fetch(`${BASE}/byok/v1/models/${model.name}/check`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(await res.json()).toMatchObject({ model: model.name, ok: true, text: "OK" });
    expect((await scenario.requests(1))[0]?.headers.authorization).toBe("Bearer sk-check-endpoint-6666");
  });
});
