// The fallback of a compaction whose summary cannot be had: the newest messages kept
// within half of what fits, never starting at a tool result, the turn's user message always
// kept (docs/protocol.md#compaction).
import { describe, expect, it } from "vitest";
import { fallbackSummary } from "../../../src/cursor/agent/compaction-fallback.ts";
import type { StoredMessage } from "../../../src/cursor/store/conversation-store.ts";
import type { ChatMessage, ModelConfig } from "../../../src/provider/types.ts";

const model: ModelConfig = {
  name: "m",
  provider: "openai-chat",
  baseUrl: "http://127.0.0.1",
  apiKey: "",
  model: "m",
  contextWindow: 32_000,
};
const stored = (messages: ChatMessage[]): StoredMessage[] =>
  messages.map((message, seq) => ({ seq, messageKey: null, message, toolCard: null, requestId: null, mode: null }));
const text = (tokens: number) => "x".repeat(tokens * 4);

describe("fallbackSummary", () => {
  it("keeps the newest messages within half of what fits and says how many were dropped", () => {
    const history = stored([
      { role: "user", content: text(9_000) },
      { role: "assistant", content: "first answer" },
      { role: "user", content: text(5_000) },
      { role: "assistant", content: "second answer" },
    ]);
    const fallback = fallbackSummary(history, model, "the summary was not written within 4 s")!;
    expect(fallback.kept.map((m) => m.seq)).toEqual([2, 3]);
    expect(fallback.note).toBe(
      "The 2 oldest messages of this conversation were dropped without a summary, because the summary was not written within 4 s. " +
        "The 2 newest messages follow as they were.",
    );
  });

  it("never starts at a tool result whose call would be dropped", () => {
    const history = stored([
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "Read", arguments: "{}" }] },
      { role: "tool", toolCallId: "a", name: "Read", content: text(7_000) },
      { role: "assistant", content: "", toolCalls: [{ id: "b", name: "Read", arguments: "{}" }] },
      { role: "tool", toolCallId: "b", name: "Read", content: text(3_000) },
    ]);
    // Half of the 10,000 tokens there are would reach back into the first result: the kept part
    // starts after it, behind the user's message that set the task.
    const fallback = fallbackSummary(history, model, "reason")!;
    expect(fallback.kept.map((m) => m.seq)).toEqual([0, 3, 4]);
    expect(fallback.note).toContain("The 2 oldest messages");
  });

  it("keeps the newest answer and its results even when they alone are past the budget", () => {
    const history = stored([
      { role: "user", content: "before" },
      { role: "assistant", content: "an earlier answer" },
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "Read", arguments: "{}" }] },
      { role: "tool", toolCallId: "a", name: "Read", content: text(20_000) },
    ]);
    expect(fallbackSummary(history, model, "reason")!.kept.map((m) => m.seq)).toEqual([2, 3, 4]);
  });

  it("offers no fallback when nothing would be dropped", () => {
    expect(fallbackSummary(stored([{ role: "user", content: "only this" }]), model, "reason")).toBeUndefined();
    const oneTurn = stored([
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "Read", arguments: "{}" }] },
      { role: "tool", toolCallId: "a", name: "Read", content: text(20_000) },
    ]);
    expect(fallbackSummary(oneTurn, model, "reason")).toBeUndefined();
  });
});
