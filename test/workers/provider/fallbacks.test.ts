// A model's fallbacks (docs/providers.md#fallbacks): a call that fails before anything streamed,
// in a way retrying the same model would not soon fix, moves on to the next model; the client sees
// one answer and every attempt is a provider call naming its model. vitest.config.ts: fake-fallback
// (32k window) falls back to fake-small (32k), then fake-model (128k).
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { conversationName } from "../../../src/core/object-names.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatChunk, chatText, createScenario, httpError } from "../../support/fake-provider.ts";
import { api, expectStatus, member, type Team, teamWithPeople } from "../../support/admin-client.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

function llmCalls(conversationId: string) {
  return runInDurableObject(env.CONVERSATION.getByName(conversationName("local", conversationId)), (_i, state) =>
    state.storage.sql
      .exec<{ display_name: string; status: string; model_id: string }>(
        "SELECT display_name, status, model_id FROM llm_calls ORDER BY attempt",
      )
      .toArray(),
  );
}

async function turn(tag: string, scenario: { marker: string }) {
  const conversationId = crypto.randomUUID();
  const { reader } = await startTurn({ conversationId, text: `${tag} ${scenario.marker}`, model: "fake-fallback" });
  return { conversationId, reader, end: await reader.end(20_000) };
}

describe("fallbacks", () => {
  for (const [what, failure] of [
    ["a 500", httpError(500, "down")],
    ["a 529 overloaded", httpError(529, "overloaded")],
    ["a 429 with no Retry-After", httpError(429, "slow down")],
    ["a 429 with a long Retry-After", httpError(429, "slow down", { "retry-after": "120" })],
  ] as const) {
    it(`moves on to the next model after ${what}, the client seeing one answer`, async () => {
      const scenario = await createScenario([failure, chatText(["from the fallback"])]);
      const { conversationId, reader, end } = await turn("fall", scenario);
      expect(end).toEqual({});
      expect(reader.text()).toBe("from the fallback");
      const calls = await llmCalls(conversationId);
      expect(calls.map((c) => [c.display_name, c.status])).toEqual([
        ["fake-fallback", "failed"],
        ["fake-small", "completed"],
      ]);
      const requests = await scenario.requests(2);
      expect(requests.map((r) => (JSON.parse(r.body) as { model: string }).model)).toEqual(["fake-f", "fake-2"]);
    });
  }

  it("records each attempt in D1 under the model that made it, for Runs and the usage ledger", async () => {
    const scenario = await createScenario([httpError(500, "down"), chatText(["from the fallback"])]);
    const { conversationId } = await turn("record", scenario);
    // The run's records reach D1 after it ended (waitUntil).
    await vi.waitFor(
      async () => {
        const rows = await env.DB.prepare(
          "SELECT model FROM provider_calls WHERE run_id IN (SELECT run_id FROM usage WHERE conversation_id = ?) ORDER BY attempt",
        )
          .bind(conversationId)
          .all<{ model: string }>();
        expect(rows.results.map((r) => r.model)).toEqual(["fake-fallback", "fake-small"]);
      },
      { timeout: 5_000 },
    );
  });

  it("waits out a short Retry-After on the same model", async () => {
    const scenario = await createScenario([httpError(429, "a moment", { "retry-after": "0" }), chatText(["same model"])]);
    const { conversationId, end } = await turn("short", scenario);
    expect(end).toEqual({});
    expect((await llmCalls(conversationId)).map((c) => c.display_name)).toEqual(["fake-fallback", "fake-fallback"]);
  });

  it("after a context overflow skips the fallbacks without a larger window", async () => {
    const scenario = await createScenario([httpError(400, "This model's maximum context length is 32000 tokens"), chatText(["roomier"])]);
    const { conversationId, reader, end } = await turn("overflow", scenario);
    expect(end).toEqual({});
    expect(reader.text()).toBe("roomier");
    expect((await llmCalls(conversationId)).map((c) => c.display_name)).toEqual(["fake-fallback", "fake-model"]);
  });

  it("does not move on once text has streamed: the user saw it", async () => {
    const cutAfterText = { steps: [chatChunk("c1", { role: "assistant", content: "half an ans" }), { cut: true as const }] };
    const scenario = await createScenario([cutAfterText, chatText(["never"])]);
    const { conversationId, reader, end } = await turn("cut", scenario);
    expect(end.error?.code).toBe("unavailable");
    expect(reader.text()).toBe("half an ans");
    expect((await llmCalls(conversationId)).map((c) => c.display_name)).toEqual(["fake-fallback"]);
  });

  it("does not move on after a failure no model would fix (a refused key)", async () => {
    const scenario = await createScenario([httpError(401, "bad key"), chatText(["never"])]);
    const { conversationId, end } = await turn("auth", scenario);
    expect(end.error?.code).toBe("unavailable");
    expect(await llmCalls(conversationId)).toHaveLength(1);
  });
});

describe("fallbacks of stored models", () => {
  it("run a team model's fallback, through the admin API's model ids", async () => {
    const { admin, member } = await teamWithPeople();
    const credential = await storeCredential(admin.token, "team", `sk-fallback-${crypto.randomUUID()}`);
    const spare = await storeModel(admin.token, { credential_id: credential.id, scope: "team", model: "fake-spare" });
    const main = await storeModel(admin.token, { credential_id: credential.id, scope: "team", model: "fake-main", fallbacks: [spare.id] });
    expect((main as unknown as { fallbacks: string[] }).fallbacks).toEqual([spare.id]);
    const scenario = await createScenario([httpError(503, "down"), chatText(["the spare answered"])]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn(
      { conversationId, text: `stored ${scenario.marker}`, model: main.name },
      { headers: { authorization: `Bearer ${member.token}` } },
    );
    expect(await reader.end(20_000)).toEqual({});
    expect(reader.text()).toBe("the spare answered");
    const requests = await scenario.requests(2);
    expect(requests.map((r) => (JSON.parse(r.body) as { model: string }).model)).toEqual(["fake-main", "fake-spare"]);
  });

  it("refuses a fallback its users may not all use, another team's, or the model itself", async () => {
    const { admin, member } = await teamWithPeople();
    const other = await teamWithPeople();
    const team = await storeCredential(admin.token, "team", `sk-a-${crypto.randomUUID()}`);
    const own = await storeCredential(member.token, "user", `sk-b-${crypto.randomUUID()}`);
    const personal = await storeModel(member.token, { credential_id: own.id, scope: "user" });
    const elsewhere = await storeModel(other.admin.token, {
      credential_id: (await storeCredential(other.admin.token, "team", `sk-c-${crypto.randomUUID()}`)).id,
      scope: "team",
    });
    const main = await storeModel(admin.token, { credential_id: team.id, scope: "team" });
    for (const id of [personal.id, elsewhere.id, main.id, "mdl_000000000000000000000000"]) {
      const res = await api<{ error: { code: string; fields: { path: string }[] } }>("PATCH", `/api/v1/models/${main.id}`, {
        token: admin.token,
        body: { fallbacks: [id] },
      });
      expect(res.status, id).toBe(400);
      expect(res.body.error.fields[0]?.path).toBe("body.fallbacks.0");
    }
    // A member's own model may fall back to a team model.
    const mine = await api("PATCH", `/api/v1/models/${personal.id}`, { token: member.token, body: { fallbacks: [main.id] } });
    expect(mine.status).toBe(200);
  });

  it("takes a deleted model, or the models of a deleted credential, out of every fallback list and role that named them", async () => {
    const { admin } = await teamWithPeople();
    const kept = await storeCredential(admin.token, "team", `sk-kept-${crypto.randomUUID()}`);
    const doomed = await storeCredential(admin.token, "team", `sk-doomed-${crypto.randomUUID()}`);
    const spare = await storeModel(admin.token, { credential_id: kept.id, scope: "team" });
    const deleted = await storeModel(admin.token, { credential_id: kept.id, scope: "team" });
    const onDoomed = await storeModel(admin.token, { credential_id: doomed.id, scope: "team" });
    const main = await storeModel(admin.token, {
      credential_id: kept.id,
      scope: "team",
      fallbacks: [deleted.id, spare.id, onDoomed.id],
      compaction_model_id: deleted.id,
      subagent_model_id: onDoomed.id,
      image_model_id: spare.id,
    });
    expectStatus(await api("DELETE", `/api/v1/models/${deleted.id}`, { token: admin.token }), 204);
    expectStatus(await api("DELETE", `/api/v1/credentials/${doomed.id}`, { token: admin.token }), 204);
    const listed = expectStatus(await api<{ models: Record<string, unknown>[] }>("GET", "/api/v1/models", { token: admin.token }), 200);
    const after = listed.models.find((m) => m.id === main.id)!;
    expect(after).toMatchObject({ fallbacks: [spare.id], compaction_model_id: null, subagent_model_id: null, image_model_id: spare.id });
    // The model's next edit, sending back what it was shown, is not refused for the models that went.
    const edited = await api("PATCH", `/api/v1/models/${main.id}`, {
      token: admin.token,
      body: { fallbacks: after.fallbacks, name: `${main.name}-2` },
    });
    expect(edited.status).toBe(200);
  });
});

describe("fallbacks and the team budget", () => {
  it("count a fallback's tokens in the team budget, so a budget it used up stops the next call", async () => {
    const team = expectStatus(
      await api<Team>("POST", "/api/v1/teams", { body: { name: `team ${crypto.randomUUID()}`, monthly_token_budget: 35 } }),
      201,
    );
    const admin = await member(team.id, "admin");
    const credential = await storeCredential(admin.token, "team", `sk-budget-${crypto.randomUUID()}`);
    const spare = await storeModel(admin.token, { credential_id: credential.id, scope: "team", model: "fake-spare" });
    const main = await storeModel(admin.token, { credential_id: credential.id, scope: "team", model: "fake-main", fallbacks: [spare.id] });
    const usage = { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 };
    const scenario = await createScenario([httpError(500, "down"), chatText(["spent"], { usage }), chatText(["never"])]);
    const as = { headers: { authorization: `Bearer ${admin.token}` } };
    const first = await startTurn({ conversationId: crypto.randomUUID(), text: `spend ${scenario.marker}`, model: main.name }, as);
    expect(await first.reader.end()).toEqual({});
    const budget = expectStatus(await api<{ used_tokens: number }>("GET", `/api/v1/teams/${team.id}/budget`, { token: admin.token }), 200);
    expect(budget.used_tokens).toBe(35);
    const second = await startTurn({ conversationId: crypto.randomUUID(), text: `again ${scenario.marker}`, model: main.name }, as);
    expect((await second.reader.end(20_000)).error?.code).toBe("resource_exhausted");
    expect(await scenario.requests()).toHaveLength(2);
  });
});
