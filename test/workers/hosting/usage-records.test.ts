// What a finished run leaves in D1: its run row, one row per provider call
// (timings and token counts, no text) and its day in the usage ledger, recorded
// under the single-user principal "local" too.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";

describe("usage records", () => {
  it("records a single-user run, its provider call and its ledger day under the principal local", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const ledger = () =>
      env.DB.prepare(
        "SELECT requests, input_tokens, output_tokens FROM usage_ledger WHERE day = ? AND principal = 'local' AND model = 'fake-small'",
      )
        .bind(today)
        .first<{ requests: number; input_tokens: number; output_tokens: number }>();
    const before = (await ledger()) ?? { requests: 0, input_tokens: 0, output_tokens: 0 };

    const scenario = await createScenario([chatText(["counted"], { usage: { prompt_tokens: 40, completion_tokens: 3 } })]);
    const { requestId, reader } = await startTurn({
      conversationId: crypto.randomUUID(),
      text: `count me ${scenario.marker}`,
      model: "fake-small",
    });
    expect(await reader.end()).toEqual({});

    await vi.waitFor(
      async () => {
        const run = await env.DB.prepare("SELECT principal, team_id, status, input_tokens FROM usage WHERE run_id LIKE ?")
          .bind(`${requestId}:%`)
          .first();
        expect(run).toEqual({ principal: "local", team_id: null, status: "completed", input_tokens: 40 });
      },
      { timeout: 5_000 },
    );
    const calls = await env.DB.prepare("SELECT * FROM provider_calls WHERE run_id LIKE ?").bind(`${requestId}:%`).all();
    expect(calls.results).toHaveLength(1);
    expect(calls.results[0]).toMatchObject({
      principal: "local",
      model: "fake-small",
      provider: "openai-chat",
      status: "completed",
      input_tokens: 40,
      output_tokens: 3,
    });
    expect(calls.results[0]!.duration_ms).toEqual(expect.any(Number));
    expect(JSON.stringify(calls.results)).not.toContain("count me");
    expect(await ledger()).toEqual({
      requests: before.requests + 1,
      input_tokens: before.input_tokens + 40,
      output_tokens: before.output_tokens + 3,
    });
  });
});
