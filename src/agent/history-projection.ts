// The stored history as a provider request. Stored messages are never rewritten;
// the projection only adds what a request must have and storage cannot: results
// for tool calls an interruption left unanswered, and a resume's nudge.
import type { ChatMessage } from "../provider/types.ts";
import type { RunAction } from "./run.ts";

export const INTERRUPTED_TOOL_RESULT = "Tool execution was interrupted by a newer user message.";
const RESUME_NUDGE = "Continue from where you left off.";

export function projectHistory(history: ChatMessage[], action: RunAction): ChatMessage[] {
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
  if (action.kind === "resume" && out.at(-1)?.role === "assistant" && !(out.at(-1) as { toolCalls?: unknown[] }).toolCalls?.length) {
    out.push({ role: "user", content: RESUME_NUDGE });
  }
  return out;
}
