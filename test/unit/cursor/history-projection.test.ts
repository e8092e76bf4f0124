// The stored history as a provider request: one result per call, even when a call has
// several outputs (a code-mode notification before its result).
import { describe, expect, it } from "vitest";
import { UNANSWERED_TOOL_RESULT, projectHistory } from "../../../src/cursor/agent/history-projection.ts";
import type { ChatMessage } from "../../../src/provider/types.ts";

const call = (id: string, name: string) => ({ id, name, arguments: "{}" });

describe("projectHistory", () => {
  it("joins the outputs of one call into one result, in order, the last one saying whether it failed", () => {
    const history: ChatMessage[] = [
      { role: "user", content: "go" },
      { role: "assistant", content: "", toolCalls: [call("a", "exec"), call("b", "Read")] },
      { role: "tool", toolCallId: "a", name: "exec", content: "halfway" },
      { role: "tool", toolCallId: "b", name: "Read", content: "file" },
      { role: "tool", toolCallId: "a", name: "exec", content: "Script failed", isError: true },
    ];
    expect(projectHistory(history).slice(2)).toEqual([
      { role: "tool", toolCallId: "a", name: "exec", content: "halfway\nScript failed", isError: true },
      { role: "tool", toolCallId: "b", name: "Read", content: "file" },
    ]);
  });

  it("still answers a call that an interruption left without a result", () => {
    const history: ChatMessage[] = [
      { role: "assistant", content: "", toolCalls: [call("a", "Read")] },
      { role: "user", content: "stop" },
    ];
    expect(projectHistory(history)[1]).toMatchObject({ role: "tool", toolCallId: "a", content: UNANSWERED_TOOL_RESULT, isError: true });
  });
});
