// GET /metrics (docs/telemetry.md#metrics): the Prometheus text format, read by a real parser;
// only the operator's token or METRICS_TOKEN; its counters and histograms move as turns run, the
// active-runs gauge counts a turn while it runs, and errors are counted by kind.
import { describe, expect, it, vi } from "vitest";
import { exports } from "cloudflare:workers";
import { BASE, startTurn } from "../../support/cursor-client.ts";
import { type Member, teamWithPeople } from "../../support/admin-client.ts";
import { chatText, createScenario, httpError, withGates } from "../../support/fake-provider.ts";
import { scrape } from "../../support/prometheus.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

async function memberWithModel(): Promise<{ member: Member; team: string; model: string }> {
  const { team, member } = await teamWithPeople();
  const credential = await storeCredential(member.token, "user", `sk-metrics-${crypto.randomUUID()}`);
  const model = await storeModel(member.token, { credential_id: credential.id, scope: "user" });
  return { member, team: team.id, model: model.name };
}

const turn = (member: Member, model: string, text: string) =>
  startTurn({ conversationId: crypto.randomUUID(), text, model }, { headers: { authorization: `Bearer ${member.token}` } });

describe("GET /metrics", () => {
  it("answers only the operator's token or METRICS_TOKEN", async () => {
    const { member } = await teamWithPeople();
    for (const authorization of [undefined, `Bearer ${member.token}`, "Bearer not-a-token"]) {
      const res = await exports.default.fetch(`${BASE}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status, authorization).toBe(401);
    }
    expect((await scrape()).families.map((f) => f.name)).toContain("byok_requests_total");
    expect((await scrape("test-metrics-token")).families.length).toBeGreaterThan(0);
  });

  it("counts a team's runs, tokens, time to first token and run duration as its turns run, and its active runs while one runs", async () => {
    const { member, team, model } = await memberWithModel();
    const labels = { team, model, provider: "openai-chat" };
    const scenario = await createScenario([withGates(chatText(["held", " answer"]), { 1: "go" }), chatText(["second"])]);
    const first = await turn(member, model, `one ${scenario.marker}`);
    await scenario.reached("go");
    await vi.waitFor(async () => expect((await scrape()).value("byok_active_runs", labels)).toBe(1), { timeout: 5_000 });
    await scenario.release("go");
    expect(await first.reader.end(20_000)).toEqual({});
    const second = await turn(member, model, `two ${scenario.marker}`);
    expect(await second.reader.end(20_000)).toEqual({});

    await vi.waitFor(
      async () => {
        const now = await scrape();
        expect(now.value("byok_requests_total", { ...labels, status: "completed" })).toBe(2);
        expect(now.value("byok_active_runs", labels)).toBe(0);
      },
      { timeout: 5_000 },
    );
    const now = await scrape();
    expect(now.value("byok_provider_calls_total", labels)).toBe(2);
    expect(now.value("byok_tokens_total", { ...labels, type: "input" })).toBe(24);
    expect(now.value("byok_tokens_total", { ...labels, type: "output" })).toBe(14);
    expect(now.histogram("byok_time_to_first_token_seconds", labels)?.count).toBe(2);
    const runs = now.histogram("byok_run_duration_seconds", labels);
    expect(runs?.count).toBe(2);
    expect(runs?.buckets["+Inf"]).toBe(2);
    expect(now.value("byok_cost_usd_total", { team, model })).toBe(0);
  });

  it("counts failed provider calls by kind, and the failed run", async () => {
    const { member, team, model } = await memberWithModel();
    const labels = { team, model, provider: "openai-chat" };
    const scenario = await createScenario([httpError(401, "bad key")]);
    expect((await (await turn(member, model, `fail ${scenario.marker}`)).reader.end(20_000)).error).toBeDefined();
    await vi.waitFor(async () => expect((await scrape()).value("byok_errors_total", { ...labels, kind: "authorization" })).toBe(1), {
      timeout: 5_000,
    });
    const now = await scrape();
    expect(now.value("byok_errors_total", { ...labels, kind: "rate_limit" })).toBe(0);
    expect(now.value("byok_requests_total", { ...labels, status: "failed" })).toBe(1);
  });
});
