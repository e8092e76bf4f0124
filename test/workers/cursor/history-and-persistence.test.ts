// What a conversation object keeps: the append-only history the provider sees on
// the next turn, the run and llm_call rows, and thinking streamed as it arrives.
import { describe, expect, it, vi } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { chatReasoning, chatText, createScenario } from "../../support/fake-provider.ts";
import { startTurn, updateCase } from "../../support/cursor-client.ts";
import { conversationName } from "../../../src/core/object-names.ts";

function messagesJson(body: string): string {
  const parsed = JSON.parse(body) as { messages: unknown[] };
  return JSON.stringify(parsed.messages);
}

describe("history and persistence", () => {
  it("sends the provider the first turn's messages unchanged on the second turn", async () => {
    const scenario = await createScenario([chatReasoning(["let me think"], ["first answer"]), chatText(["second answer"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `first question ${scenario.marker}`, messageId: "m1" });
    expect(await one.reader.end()).toEqual({});
    const two = await startTurn({ conversationId, text: "second question", messageId: "m2" });
    expect(await two.reader.end()).toEqual({});

    const [first, second] = await scenario.requests(2);
    const firstMessages = messagesJson(first!.body);
    // Byte for byte: the second request's messages begin with the first's.
    expect(second!.body).toContain(firstMessages.slice(0, -1));
    const secondMessages = JSON.parse(messagesJson(second!.body)) as { role: string; content: string; reasoning_content?: string }[];
    expect(secondMessages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(secondMessages[2]).toMatchObject({ content: "first answer", reasoning_content: "let me think" });
    expect(secondMessages[3]?.content).toBe("second question");
  });

  it("streams thinking as deltas, closes it before the text, and keeps it out of the text", async () => {
    const scenario = await createScenario([chatReasoning(["step one, ", "step two"], ["answer"])]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `think ${scenario.marker}` });
    expect(await reader.end()).toEqual({});
    const cases = reader.updates().map((u) => u.case);
    expect(cases.filter((c) => c === "thinkingDelta")).toHaveLength(2);
    expect(cases.indexOf("thinkingCompleted")).toBeGreaterThan(cases.lastIndexOf("thinkingDelta"));
    expect(cases.indexOf("thinkingCompleted")).toBeLessThan(cases.indexOf("textDelta"));
    expect(reader.text()).toBe("answer");
  });

  it("records the run as completed and one llm_call with the provider's token counts and timings", async () => {
    const scenario = await createScenario([
      chatText(["counted"], { usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 60 } } }),
    ]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `count ${scenario.marker}` });
    expect(await reader.end()).toEqual({});
    const ended = reader.updates().find((u) => u.case === "turnEnded")?.value as { inputTokens: bigint; cacheReadTokens: bigint };
    expect(ended.inputTokens).toBe(100n);
    expect(ended.cacheReadTokens).toBe(60n);

    const stub = env.CONVERSATION.getByName(conversationName("local", conversationId));
    const rows = await runInDurableObject(stub, (_instance, state) => ({
      runs: state.storage.sql.exec("SELECT status, usage_json FROM runs").toArray(),
      calls: state.storage.sql
        .exec("SELECT status, input_tokens, output_tokens, cache_read_tokens, ttfb_ms, ttft_ms, duration_ms, finished_at_ms FROM llm_calls")
        .toArray(),
      migrations: state.storage.sql.exec("SELECT count(*) AS n FROM __drizzle_migrations").one(),
    }));
    expect(rows.runs).toHaveLength(1);
    expect(rows.runs[0]).toMatchObject({ status: "completed" });
    expect(rows.calls).toHaveLength(1);
    expect(rows.calls[0]).toMatchObject({ status: "completed", input_tokens: 100, output_tokens: 5, cache_read_tokens: 60 });
    expect(rows.calls[0]!.ttfb_ms).not.toBeNull();
    expect(rows.calls[0]!.ttft_ms).not.toBeNull();
    expect(rows.calls[0]!.duration_ms).not.toBeNull();
    expect(rows.migrations.n).toBeGreaterThanOrEqual(1);

    // Usage reaches D1 after the stream ended (it must not delay the client).
    await vi.waitFor(
      async () => {
        const usage = await env.DB.prepare("SELECT input_tokens, status FROM usage WHERE conversation_id = ?").bind(conversationId).all();
        expect(usage.results).toEqual([{ input_tokens: 100, status: "completed" }]);
      },
      { timeout: 5_000 },
    );
  });

  it("emits token_delta for the provider call before turn_ended", async () => {
    const scenario = await createScenario([chatText(["x"], { usage: { prompt_tokens: 3, completion_tokens: 9 } })]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `tokens ${scenario.marker}` });
    expect(await reader.end()).toEqual({});
    const tokenFrames = reader.frames.filter((f) => updateCase(f) === "tokenDelta");
    expect(tokenFrames).toHaveLength(1);
    const update = reader.updates().find((u) => u.case === "tokenDelta")?.value as { tokens: number };
    expect(update.tokens).toBe(9);
  });
});
