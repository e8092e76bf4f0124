// Budgets fail closed (docs/hosting.md#limits): a provider call the provider accepted
// counts whatever its end, cancelled, replaced, stalled or cut, with its input estimate
// plus the output it streamed when it reported no usage, in the team's budget and in the
// usage records alike; a call refused before 2xx counts nothing.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { api, expectStatus, type Member, member, type Team } from "../../support/admin-client.ts";
import { clientMessage, type FrameReader, startTurn, updateCase } from "../../support/cursor-client.ts";
import { chatText, createScenario, cutAfter, hangAfter, httpError, type Scenario, withGates } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

interface Hosted {
  team: Team;
  who: Member;
  model: string;
}

interface CallRow {
  status: string;
  input_tokens: number | null;
  output_tokens: number | null;
  usage_estimated: number | null;
}

/** A team with a budget and one member with a priced model on the fake provider. */
async function hosted(model: Record<string, unknown> = {}): Promise<Hosted> {
  const body = { name: `team ${crypto.randomUUID()}`, monthly_token_budget: 1_000_000 };
  const team = expectStatus(await api<Team>("POST", "/api/v1/teams", { body }), 201);
  const who = await member(team.id, "member");
  const credential = await storeCredential(who.token, "user", `sk-counted-${crypto.randomUUID()}`);
  const prices = { price_input_per_mtok: 1, price_output_per_mtok: 2 };
  const name = (await storeModel(who.token, { credential_id: credential.id, scope: "user", ...prices, ...model })).name;
  return { team, who, model: name };
}

function turn(at: Hosted, scenario: Scenario, conversationId = crypto.randomUUID()) {
  return startTurn(
    { conversationId, text: `go ${scenario.marker}`, model: at.model },
    { headers: { authorization: `Bearer ${at.who.token}` } },
  );
}

async function usedTokens(at: Hosted): Promise<{ used_tokens: number; reserved_tokens: number }> {
  return expectStatus(await api("GET", `/api/v1/teams/${at.team.id}/budget`, { token: at.who.token }), 200) as never;
}

/** The member's provider calls and ledger, once the run's records are in D1. */
async function records(at: Hosted, runs = 1) {
  return vi.waitFor(
    async () => {
      const calls = await env.DB.prepare(
        "SELECT status, input_tokens, output_tokens, usage_estimated FROM provider_calls WHERE principal = ? ORDER BY created_at_ms",
      )
        .bind(at.who.user.id)
        .all<CallRow>();
      const ledger = await env.DB.prepare(
        "SELECT sum(requests) AS requests, sum(input_tokens + output_tokens) AS tokens, sum(cost_usd) AS cost FROM usage_ledger WHERE principal = ?",
      )
        .bind(at.who.user.id)
        .first<{ requests: number; tokens: number; cost: number }>();
      expect(ledger?.requests).toBe(runs);
      return { calls: calls.results, ledger: ledger! };
    },
    { timeout: 5_000 },
  );
}

function firstText(reader: FrameReader) {
  return reader.until((frame) => updateCase(frame) === "textDelta", "the first text delta");
}

/**
 * The one call's estimate: some input, exactly the streamed characters' output at 4 a token,
 * and the same figure in the budget, the provider call row and the ledger (with its cost).
 */
async function expectCountedEstimate(at: Hosted, streamed: string, status: string) {
  const { calls, ledger } = await records(at);
  expect(calls).toHaveLength(1);
  const [call] = calls as [CallRow];
  expect(call).toMatchObject({ status, output_tokens: Math.ceil(streamed.length / 4), usage_estimated: 1 });
  expect(call.input_tokens).toBeGreaterThan(0);
  const tokens = (call.input_tokens ?? 0) + (call.output_tokens ?? 0);
  expect(ledger.tokens).toBe(tokens);
  expect(ledger.cost).toBeGreaterThan(0);
  expect(await usedTokens(at)).toEqual(expect.objectContaining({ used_tokens: tokens, reserved_tokens: 0 }));
}

describe("every accepted provider call counts", () => {
  it("counts a call the user cancelled mid-stream by its input estimate and the text it streamed", async () => {
    const at = await hosted();
    const scenario = await createScenario([withGates(chatText(["partial ", "never sent"]), { 2: "held" })]);
    const { reader } = await turn(at, scenario);
    await firstText(reader);
    await reader.send(clientMessage({ message: { case: "conversationAction", value: { action: { case: "cancelAction", value: {} } } } }));
    expect((await reader.end()).error?.code).toBe("canceled");
    await expectCountedEstimate(at, "partial ", "cancelled");
  });

  it("counts a call whose run a new run replaced mid-stream", async () => {
    const at = await hosted();
    // One scenario for both: the second request's history carries the first one's marker.
    const scenario = await createScenario([
      withGates(chatText(["replaced ", "never sent"]), { 2: "held" }),
      chatText(["next"], { usage: { prompt_tokens: 40, completion_tokens: 2, total_tokens: 42 } }),
    ]);
    const conversationId = crypto.randomUUID();
    const first = await turn(at, scenario, conversationId);
    await firstText(first.reader);
    const second = await turn(at, scenario, conversationId);
    expect((await first.reader.end()).error?.code).toBe("canceled");
    expect(await second.reader.end()).toEqual({});

    const { calls, ledger } = await records(at, 2);
    const replaced = calls.find((c) => c.status === "cancelled");
    expect(replaced).toMatchObject({ output_tokens: Math.ceil("replaced ".length / 4), usage_estimated: 1 });
    expect(replaced?.input_tokens).toBeGreaterThan(0);
    const estimate = (replaced?.input_tokens ?? 0) + (replaced?.output_tokens ?? 0);
    expect(ledger.tokens).toBe(estimate + 42);
    expect((await usedTokens(at)).used_tokens).toBe(estimate + 42);
  });

  it("counts a call that stalled after streaming some text", async () => {
    const at = await hosted({ stall_timeout_ms: 1_000 });
    const scenario = await createScenario([hangAfter(chatText(["stalled answer"]), 2)]);
    const { reader } = await turn(at, scenario);
    expect((await reader.end()).error).toBeDefined();
    await expectCountedEstimate(at, "stalled answer", "failed");
  });

  it("counts a call the provider cut mid-stream", async () => {
    const at = await hosted();
    const scenario = await createScenario([cutAfter(chatText(["cut off here"]), 2)]);
    const { reader } = await turn(at, scenario);
    expect((await reader.end()).error).toBeDefined();
    await expectCountedEstimate(at, "cut off here", "failed");
  });

  it("counts a completed call that reported no usage by its estimate", async () => {
    const at = await hosted();
    const scenario = await createScenario([chatText(["no usage reported"], { usage: null })]);
    const { reader } = await turn(at, scenario);
    expect(await reader.end()).toEqual({});
    await expectCountedEstimate(at, "no usage reported", "completed");
  });

  it("counts the provider's own usage when it reported one, not an estimate", async () => {
    const at = await hosted();
    const scenario = await createScenario([
      chatText(["reported"], { usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 } }),
    ]);
    const { reader } = await turn(at, scenario);
    expect(await reader.end()).toEqual({});
    const { calls, ledger } = await records(at);
    expect(calls).toEqual([{ status: "completed", input_tokens: 30, output_tokens: 5, usage_estimated: 0 }]);
    expect(ledger.tokens).toBe(35);
    expect((await usedTokens(at)).used_tokens).toBe(35);
  });

  it("counts nothing for a call the provider refused before answering 2xx", async () => {
    const at = await hosted();
    const scenario = await createScenario([httpError(401, "invalid api key")]);
    const { reader } = await turn(at, scenario);
    expect((await reader.end()).error).toBeDefined();
    const { calls, ledger } = await records(at);
    expect(calls).toEqual([{ status: "failed", input_tokens: null, output_tokens: null, usage_estimated: null }]);
    expect(ledger.tokens).toBe(0);
    expect(await usedTokens(at)).toEqual(expect.objectContaining({ used_tokens: 0, reserved_tokens: 0 }));
  });
});
