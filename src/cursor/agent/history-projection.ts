// The stored history as a provider request. Stored messages are never rewritten;
// the projection only adds what a request must have and storage cannot: results
// for tool calls an interruption left unanswered, and one result per call where a
// call has several (a code-mode notification is an extra output, docs/code-mode.md#cursor-runs).
import type { ChatMessage } from "../../provider/types.ts";

/** What an injected message's unfinished calls get (docs/protocol.md#interrupts). */
export const INTERRUPTED_TOOL_RESULT = "Tool execution was interrupted by a newer user message.";
/**
 * @internal Exported for the tests. What a call gets that was left without a result for any
 * other reason (a cancel, a replaced run, a client that left, a restart): nothing says a
 * message interrupted it.
 */
export const UNANSWERED_TOOL_RESULT = "Tool execution was interrupted before it returned a result.";

export function projectHistory(history: ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (let i = 0; i < history.length; i++) {
    const message = history[i]!;
    out.push(message);
    if (message.role !== "assistant" || !message.toolCalls?.length) continue;
    // Copy this round's results, then answer the calls that have none.
    let j = i + 1;
    const answered = new Map<string, number>();
    for (; j < history.length && history[j]!.role === "tool"; j++) {
      const result = history[j] as Extract<ChatMessage, { role: "tool" }>;
      const earlier = answered.get(result.toolCallId);
      if (earlier === undefined) {
        answered.set(result.toolCallId, out.length);
        out.push(result);
      } else {
        out[earlier] = joinResults(out[earlier] as typeof result, result);
      }
    }
    for (const call of message.toolCalls) {
      if (!answered.has(call.id) && j < history.length) {
        out.push({ role: "tool", toolCallId: call.id, name: call.name, content: UNANSWERED_TOOL_RESULT, isError: true });
      }
    }
    i = j - 1;
  }
  return out;
}

/** Two outputs of one call as one result, in the order they came; the later one says whether it failed. */
function joinResults(
  first: Extract<ChatMessage, { role: "tool" }>,
  next: Extract<ChatMessage, { role: "tool" }>,
): Extract<ChatMessage, { role: "tool" }> {
  const images = [...(first.images ?? []), ...(next.images ?? [])];
  const { isError: _first, images: _images, ...rest } = first;
  return {
    ...rest,
    content: `${first.content}\n${next.content}`,
    ...(next.isError && { isError: true }),
    ...(images.length > 0 && { images }),
  };
}
