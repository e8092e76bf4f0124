// The stored history as a provider request. Stored messages are never rewritten;
// the projection only adds what a request must have and storage cannot: results
// for tool calls an interruption left unanswered.
import type { ChatMessage } from "../provider/types.ts";

export const INTERRUPTED_TOOL_RESULT = "Tool execution was interrupted by a newer user message.";

export function projectHistory(history: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < history.length; i++) {
    const message = history[i]!;
    out.push(message);
    if (message.role !== "assistant" || !message.toolCalls?.length) continue;
    // Copy this round's results, then answer the calls that have none.
    let j = i + 1;
    const answered = new Set<string>();
    for (; j < history.length && history[j]!.role === "tool"; j++) {
      const result = history[j] as Extract<ChatMessage, { role: "tool" }>;
      answered.add(result.toolCallId);
      out.push(result);
    }
    for (const call of message.toolCalls) {
      if (!answered.has(call.id) && j < history.length) {
        out.push({ role: "tool", toolCallId: call.id, name: call.name, content: INTERRUPTED_TOOL_RESULT, isError: true });
      }
    }
    i = j - 1;
  }
  return out;
}
