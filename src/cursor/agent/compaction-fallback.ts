// What a compaction keeps when the model's summary cannot be had (its deadline
// passed, the user's new message interrupted it, the conversation is too long to
// summarise): the newest messages as they were, the oldest dropped, and a note in
// their place that says so (docs/protocol.md#compaction).
import type { ModelConfig } from "../../provider/types.ts";
import type { StoredMessage } from "../store/conversation-store.ts";
import { estimateTokens, inputLimit } from "./context-window.ts";

export interface Fallback {
  /** The text that stands in for the summary. */
  note: string;
  /** The newest messages, kept as they were, oldest first. */
  kept: StoredMessage[];
}

/**
 * Keeps the newest messages within half of what fits (and at most half of what there is, so
 * something is always dropped), starting where a turn starts, else where an answer starts:
 * never at a tool result whose call would be gone. The newest answer and its results stay even
 * past that, and so does the newest user message, the task of the turn.
 * `messages`: the history without the system prompt, summaries and request contexts.
 */
export function fallbackSummary(messages: readonly StoredMessage[], model: ModelConfig, reason: string): Fallback | undefined {
  const sizes = messages.map((m) => estimateTokens([m.message], []));
  const total = sizes.reduce((a, b) => a + b, 0);
  const budget = Math.min(Math.floor(inputLimit(model) / 2), Math.floor(total / 2));
  let start = messages.length;
  for (let used = 0; start > 0 && used + sizes[start - 1]! <= budget; start--) used += sizes[start - 1]!;
  const lastUnit = messages.findLastIndex((m) => m.message.role !== "tool");
  if (lastUnit >= 0) start = Math.min(start, lastUnit);
  // Best at the start of a turn; else at an answer, never at a result whose call is dropped.
  const turn = messages.findIndex((m, i) => i >= start && m.message.role === "user");
  if (turn >= 0) start = turn;
  while (start < messages.length && messages[start]!.message.role === "tool") start++;
  // Mid-turn (a long tool loop), the user's message stays too: the model must still know its task.
  const query = messages.findLastIndex((m) => m.message.role === "user");
  const kept = query >= 0 && query < start ? [messages[query]!, ...messages.slice(start)] : messages.slice(start);
  const dropped = messages.length - kept.length;
  if (dropped === 0) return undefined;
  return {
    note:
      `The ${dropped} oldest messages of this conversation were dropped without a summary, because ${reason}. ` +
      `The ${kept.length} newest messages follow as they were.`,
    kept,
  };
}
