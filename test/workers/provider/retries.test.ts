// Provider failures inside a run: rate limits and transient errors are retried
// with bounded backoff from the same history; other failures end the run once.
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { conversationName } from "../../../src/core/object-names.ts";
import { chatText, createScenario, httpError } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";

function runs(conversationId: string) {
  return runInDurableObject(env.CONVERSATION.getByName(conversationName("local", conversationId)), (_i, state) =>
    state.storage.sql.exec<{ status: string; failure_message: string | null }>("SELECT status, failure_message FROM runs").toArray(),
  );
}

function llmCalls(conversationId: string) {
  return runInDurableObject(env.CONVERSATION.getByName(conversationName("local", conversationId)), (_i, state) =>
    state.storage.sql
      .exec<{ call_id: string; attempt: number; status: string; http_status: number | null }>(
        "SELECT call_id, attempt, status, http_status FROM llm_calls ORDER BY attempt",
      )
      .toArray(),
  );
}

describe("provider retries", () => {
  it("retries a provider that fails twice and completes the turn on the third attempt, without duplicating history", async () => {
    const scenario = await createScenario([
      httpError(429, "slow down", { "retry-after": "0" }),
      httpError(503, "overloaded"),
      chatText(["third time lucky"]),
    ]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `retry ${scenario.marker}` });
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("third time lucky");
    const requests = await scenario.requests(3);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1); // every attempt sent the same history
    const calls = await llmCalls(conversationId);
    expect(calls.map((c) => [c.attempt, c.status])).toEqual([
      [0, "failed"],
      [1, "failed"],
      [2, "completed"],
    ]);
    expect(calls[2]!.call_id).toMatch(/:retry-2$/);
  });

  it("gives up after bounded retries of a provider that keeps failing, with a provider error", async () => {
    const scenario = await createScenario([
      httpError(500, "down"),
      httpError(500, "down"),
      httpError(500, "down"),
      httpError(500, "still down"),
    ]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `down ${scenario.marker}` });
    const end = await reader.end(20_000);
    expect(end.error?.code).toBe("unavailable");
    expect(end.error?.message).toContain("still down");
    expect((await llmCalls(conversationId)).map((c) => c.status)).toEqual(["failed", "failed", "failed", "failed"]);
  }, 30_000);

  it("does not retry an authorization failure", async () => {
    const scenario = await createScenario([httpError(401, "bad key"), chatText(["never"])]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `auth ${scenario.marker}` });
    expect((await reader.end()).error?.code).toBe("unavailable");
    expect(await llmCalls(conversationId)).toHaveLength(1);
  });

  it("turns a provider stream that goes quiet into a clear stall error, using the model's stall timeout", async () => {
    const hang = {
      steps: [{ data: JSON.stringify({ id: "c", choices: [{ index: 0, delta: { role: "assistant" } }] }) }, { hang: true as const }],
    };
    const scenario = await createScenario([hang, hang, hang, hang]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `quiet ${scenario.marker}`, model: "fake-stall" });
    const end = await reader.end(20_000);
    expect(end.error?.code).toBe("unavailable");
    expect(end.error?.message).toMatch(/stalled/);
    expect(await llmCalls(conversationId)).toHaveLength(4);
  }, 30_000);

  it("ends a turn whose provider accepts the request and never answers with a first-response timeout, each attempt within the model's stall timeout", async () => {
    const silent = { silent: true as const };
    const scenario = await createScenario([silent, silent, silent, silent]);
    const conversationId = crypto.randomUUID();
    const started = Date.now();
    const { reader } = await startTurn({ conversationId, text: `silent ${scenario.marker}`, model: "fake-stall" });
    // 4 attempts × the 1 s stall timeout, plus at most 0.5 + 1 + 2 s of backoff between them.
    const end = await reader.end(12_000); // also checks: exactly one end-stream frame, then the body closed
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(end.error?.code).toBe("unavailable");
    expect(end.error?.message).toMatch(/first-response timeout: no response headers for 1 s/);
    expect((await scenario.requests(4)).length).toBe(4);
    expect((await llmCalls(conversationId)).map((c) => c.status)).toEqual(["failed", "failed", "failed", "failed"]);
    expect((await runs(conversationId)).map((r) => r.status)).toEqual(["failed"]);
  }, 30_000);

  it("ends a rate-limited turn at once when the provider's Retry-After is longer than the retry budget, saying when to retry", async () => {
    const scenario = await createScenario([httpError(429, "slow down", { "retry-after": "120" }), chatText(["never"])]);
    const conversationId = crypto.randomUUID();
    const started = Date.now();
    const { reader } = await startTurn({ conversationId, text: `limited ${scenario.marker}` });
    const end = await reader.end(5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(end.error?.code).toBe("unavailable");
    expect(end.error?.message).toContain("provider returned HTTP 429: slow down");
    expect(end.error?.message).toMatch(
      /retry budget spent: the provider said to retry in 120 s \(at \d{2}:\d{2}:\d{2} UTC\), 60 s of waiting is left/,
    );
    expect(await llmCalls(conversationId)).toHaveLength(1);
    const [run] = await runs(conversationId);
    expect(run?.status).toBe("failed");
    expect(run?.failure_message).toContain("retry budget spent");
  }, 30_000);
});
