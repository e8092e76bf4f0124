// Limits of hosted users (docs/hosting.md#limits): requests_per_minute and
// max_concurrent_runs per user, monthly_token_budget per team, on turns,
// compaction and model checks, through real objects, local D1 and the fake provider.
import { afterEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { teamBudgetName, userLimiterName } from "../../../src/core/object-names.ts";
import { setLimitsClock } from "../../../src/hosting/limits/clock.ts";
import type { TeamMonth } from "../../../src/hosting/limits/team-month.ts";
import { admit, type UserWindow } from "../../../src/hosting/limits/user-window.ts";
import { chatText, createScenario, cutAfter, withGates } from "../../support/fake-provider.ts";
import { BASE, startTurn } from "../../support/cursor-client.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";
import { api, expectStatus, issueToken, type Team, type User } from "../../support/admin-client.ts";
import { exports } from "cloudflare:workers";

afterEach(() => setLimitsClock(Date.now));

interface Hosted {
  user: User;
  team: Team;
  token: string;
}

/** A team (with its budget) and one member with the given limits, using the test models. */
async function hostedUser(limits: { rpm?: number; concurrent?: number; budget?: number }): Promise<Hosted> {
  const team = expectStatus(
    await api<Team>("POST", "/api/v1/teams", {
      body: { name: `team ${crypto.randomUUID()}`, monthly_token_budget: limits.budget ?? null },
    }),
    201,
  );
  const body = {
    email: `m-${crypto.randomUUID()}@example.com`,
    role: "member",
    ...(limits.rpm !== undefined && { requests_per_minute: limits.rpm }),
    ...(limits.concurrent !== undefined && { max_concurrent_runs: limits.concurrent }),
  };
  const user = expectStatus(await api<User>("POST", `/api/v1/teams/${team.id}/users`, { body }), 201);
  const token = (await issueToken(user.id)).token;
  // The user's own model on the fake provider, named as the scripted client asks for it.
  const credential = await storeCredential(token, "user", "sk-limits-test-key-0123456789");
  await storeModel(token, { name: "fake-model", model: "fake-1", credential_id: credential.id, scope: "user" });
  return { user, team, token };
}

function turn(who: Hosted, conversationId: string, text: string) {
  return startTurn({ conversationId, text }, { headers: { authorization: `Bearer ${who.token}` } });
}

async function endOf(who: Hosted, conversationId: string, text: string) {
  const { reader } = await turn(who, conversationId, text);
  return { end: await reader.end(), text: reader.text() };
}

function budgetState(team: Team) {
  return runInDurableObject(env.TEAM_BUDGET.getByName(teamBudgetName(team.id)), (_instance, state) =>
    state.storage.kv.get<TeamMonth>("month"),
  );
}

describe("requests_per_minute", () => {
  it("ends the run after the limit within a minute with resource_exhausted naming the limit and when it frees, and lets one through a minute later", async () => {
    let now = Date.UTC(2031, 4, 10, 12, 0, 0);
    setLimitsClock(() => now);
    const who = await hostedUser({ rpm: 2 });
    const scenario = await createScenario([chatText(["one"]), chatText(["two"]), chatText(["three"])]);
    const conversationId = crypto.randomUUID();
    expect((await endOf(who, conversationId, `a ${scenario.marker}`)).end).toEqual({});
    now += 20_000;
    expect((await endOf(who, conversationId, `b ${scenario.marker}`)).end).toEqual({});
    now += 20_000;
    const third = await endOf(who, conversationId, `c ${scenario.marker}`);
    expect(third.end.error?.code).toBe("resource_exhausted");
    expect(third.end.error?.message).toBe(
      `requests_per_minute limit of 2 reached: the next run can start in 20 s (at ${new Date(Date.UTC(2031, 4, 10, 12, 1, 0)).toISOString()})`,
    );
    expect(third.text).toBe("");
    expect((await scenario.requests(2)).length).toBe(2);

    now += 20_001; // the first run left the window
    const fourth = await endOf(who, conversationId, `d ${scenario.marker}`);
    expect(fourth.end).toEqual({});
    expect(fourth.text).toBe("three");
  });
});

describe("max_concurrent_runs", () => {
  it("refuses a second run while the first is in progress, and admits a new one once it ended", async () => {
    const who = await hostedUser({ concurrent: 1 });
    const held = await createScenario([withGates(chatText(["first ", "answer"]), { 1: "held" })]);
    const other = await createScenario([chatText(["later"])]);
    const first = await turn(who, crypto.randomUUID(), `first ${held.marker}`);
    await held.reached("held");

    const second = await endOf(who, crypto.randomUUID(), `second ${other.marker}`);
    expect(second.end.error?.code).toBe("resource_exhausted");
    expect(second.end.error?.message).toBe("max_concurrent_runs limit of 1 reached: 1 run is in progress; a slot frees when one ends");

    await held.release("held");
    expect(await first.reader.end()).toEqual({});
    const third = await endOf(who, crypto.randomUUID(), `third ${other.marker}`);
    expect(third.end).toEqual({});
    expect(third.text).toBe("later");
    expect((await other.requests(1)).length).toBe(1);
  });

  it("frees the slot of a run whose object never released it once its lease expires", async () => {
    let now = Date.UTC(2031, 4, 11, 9, 0, 0);
    setLimitsClock(() => now);
    const who = await hostedUser({ concurrent: 1 });
    // A run admitted and then lost with its object (a crash): nobody renews or releases its lease.
    await runInDurableObject(env.USER_LIMITER.getByName(userLimiterName(who.user.id)), (_instance, state) => {
      const lost: UserWindow = admit({ starts: [], leases: {} }, { requestsPerMinute: null, maxConcurrentRuns: 1 }, "lost", now);
      state.storage.kv.put("window", lost);
    });
    const scenario = await createScenario([chatText(["after the lease"])]);
    expect((await endOf(who, crypto.randomUUID(), `x ${scenario.marker}`)).end.error?.code).toBe("resource_exhausted");
    now += 120_001;
    expect(await endOf(who, crypto.randomUUID(), `y ${scenario.marker}`)).toEqual({ end: {}, text: "after the lease" });
  });
});

describe("monthly_token_budget", () => {
  it("counts the provider's usage figures and refuses the next provider call once the team's budget is used up", async () => {
    const who = await hostedUser({ budget: 30 });
    const scenario = await createScenario([chatText(["one"]), chatText(["two"]), chatText(["three"])]);
    const conversationId = crypto.randomUUID();
    // Each call reports 12 input + 7 output tokens: 19, then 38 of 30.
    expect((await endOf(who, conversationId, `a ${scenario.marker}`)).end).toEqual({});
    expect((await endOf(who, conversationId, `b ${scenario.marker}`)).end).toEqual({});
    const third = await endOf(who, conversationId, `c ${scenario.marker}`);
    expect(third.end.error).toMatchObject({ code: "resource_exhausted", message: "team monthly token budget of 30 tokens is used up" });
    expect((await scenario.requests(2)).length).toBe(2);
    expect((await budgetState(who.team))?.used).toBe(38);
  });

  it("lets at most one of two runs racing for the last of a budget start its call, overshooting by at most that call's usage beyond its reservation", async () => {
    const who = await hostedUser({ budget: 100 });
    const spend = await createScenario([chatText(["spent"], { usage: { prompt_tokens: 80, completion_tokens: 10, total_tokens: 90 } })]);
    expect((await endOf(who, crypto.randomUUID(), `spend ${spend.marker}`)).end).toEqual({});

    const a = await createScenario([withGates(chatText(["a"]), { 1: "a" })]);
    const b = await createScenario([withGates(chatText(["b"]), { 1: "b" })]);
    const [runA, runB] = await Promise.all([
      turn(who, crypto.randomUUID(), `a ${a.marker}`),
      turn(who, crypto.randomUUID(), `b ${b.marker}`),
    ]);
    const ends = [runA.reader.end(), runB.reader.end()];
    // The refused run ends at once; the other one holds the last 10 tokens at its gate.
    const firstEnd = await Promise.race(ends);
    expect(firstEnd.error).toMatchObject({ code: "resource_exhausted", message: "team monthly token budget of 100 tokens is used up" });
    await Promise.all([a.release("a"), b.release("b")]);
    const results = await Promise.all(ends);
    expect(results.filter((e) => e.error === undefined).length).toBe(1);
    const calls = (await a.requests()).length + (await b.requests()).length;
    expect(calls).toBe(1);
    // 90 + 19: the passing call reserved the last 10 and used 19, 9 beyond its reservation.
    const state = await budgetState(who.team);
    expect(state?.used).toBe(109);
    expect(state?.reservations).toEqual({});
  });

  it("admits a second call on what the first one's reservation left, refuses a third, and counts both cut calls within the stated bound", async () => {
    const budget = 1_000_000;
    const who = await hostedUser({ budget });
    // Each streams 200 characters (50 tokens at 4 a token), then the provider cuts it: no usage reported.
    const answer = "x".repeat(200);
    const cutAtGate = (gate: string) => withGates(cutAfter(chatText([answer]), 2), { 2: gate });
    const a = await createScenario([cutAtGate("a")]);
    const b = await createScenario([cutAtGate("b")]);
    const c = await createScenario([chatText(["never"])]);

    const runA = await turn(who, crypto.randomUUID(), `a ${a.marker}`);
    await a.reached("a");
    const reservedA = Object.values((await budgetState(who.team))?.reservations ?? {});
    expect(reservedA).toHaveLength(1);
    const fullA = reservedA[0]!.tokens; // its input estimate plus the 4,096 output tokens it may take
    // The month so far leaves 10 tokens beyond A's reservation.
    const before = budget - fullA - 10;
    await runInDurableObject(env.TEAM_BUDGET.getByName(teamBudgetName(who.team.id)), (_instance, state) => {
      const month = state.storage.kv.get<TeamMonth>("month")!;
      state.storage.kv.put("month", { ...month, used: before });
    });

    const runB = await turn(who, crypto.randomUUID(), `b ${b.marker}`);
    await b.reached("b");
    const reservations = (await budgetState(who.team))?.reservations ?? {};
    expect(
      Object.values(reservations)
        .map((r) => r.tokens)
        .sort((x, y) => y - x),
    ).toEqual([fullA, 10]);
    // Used plus reserved now reach the budget: a third call is refused before it starts.
    const third = await endOf(who, crypto.randomUUID(), `c ${c.marker}`);
    expect(third.end.error).toMatchObject({ code: "resource_exhausted" });
    expect((await c.requests()).length).toBe(0);

    await Promise.all([a.release("a"), b.release("b")]);
    expect((await runA.reader.end()).error).toBeDefined();
    expect((await runB.reader.end()).error).toBeDefined();
    const counted = await vi.waitFor(
      async () => {
        const rows = await env.DB.prepare(
          "SELECT input_tokens + output_tokens AS tokens FROM provider_calls WHERE principal = ? AND input_tokens IS NOT NULL",
        )
          .bind(who.user.id)
          .all<{ tokens: number }>();
        expect(rows.results).toHaveLength(2);
        return rows.results.map((r) => r.tokens).sort((x, y) => y - x);
      },
      { timeout: 5_000 },
    );
    const state = await budgetState(who.team);
    expect(state?.reservations).toEqual({});
    expect(state?.used).toBe(before + counted[0]! + counted[1]!);
    // The bound (docs/hosting.md#limits): the calls that started while something was left, each by its own output beyond its reservation.
    const overshoot = state!.used - budget;
    expect(overshoot).toBeGreaterThan(0);
    expect(overshoot).toBeLessThanOrEqual(counted[0]! - fullA + (counted[1]! - 10));
  });

  it("refuses compaction once the budget is used up", async () => {
    const who = await hostedUser({ budget: 10 });
    const scenario = await createScenario([chatText(["one"]), chatText(["summary"])]);
    const conversationId = crypto.randomUUID();
    expect((await endOf(who, conversationId, `a ${scenario.marker}`)).end).toEqual({});
    const summary = await endOf(who, conversationId, "/summarize");
    expect(summary.end.error).toMatchObject({ code: "resource_exhausted", message: "team monthly token budget of 10 tokens is used up" });
    expect((await scenario.requests(1)).length).toBe(1);
  });

  it("refuses a model check once the budget is used up, and counts a check's usage", async () => {
    const who = await hostedUser({ budget: 10 });
    await createScenario([chatText(["OK"])], "check-budget-first");
    const check = () =>
      exports.default.fetch(`${BASE}/byok/v1/models/fake-model/check`, {
        method: "POST",
        headers: { authorization: `Bearer ${who.token}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "scenario:check-budget-first" }),
      });
    const first = await check();
    expect(first.status).toBe(200);
    expect(((await first.json()) as { ok: boolean }).ok).toBe(true);
    const second = await check();
    expect(second.status).toBe(429);
    expect(await second.json()).toEqual({ code: "resource_exhausted", message: "team monthly token budget of 10 tokens is used up" });
  });
});
