// Compaction: when the history no longer fits (or the user asks with
// /summarize), the model summarises it in a call without tools, and the live
// history becomes the system prompt, the summary, the latest request context
// (docs/request-context.md) and the current query. The
// replaced messages stay stored (off the live branch) and in the checkpoint's
// summary archive.
import compactionPrompt from "../../../prompt/compaction.md";
import type { AgentServerMessage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { updates } from "../../proto/frames.ts";
import { AppError } from "../../core/errors.ts";
import type { ConversationStore, StoredMessage } from "../store/conversation-store.ts";
import type { ChatMessage, ModelConfig, Provider, ToolDefinition, Usage } from "../../provider/types.ts";
import { callModel } from "./model-call.ts";
import { inputTokenEstimate } from "../../provider/metering.ts";
import { projectHistory } from "./history-projection.ts";
import { USER_MESSAGE_KEY_PREFIX } from "./checkpoint.ts";
import { REQUEST_CONTEXT_KEY_PREFIX } from "../context/context-message.ts";

export const SUMMARY_KEY_PREFIX = "summary:";
const SUMMARY_OPEN = "<conversation_summary>\n";
const SUMMARY_CLOSE = "\n</conversation_summary>";

export interface CompactionDeps {
  store: ConversationStore;
  provider: Provider;
  emit: (message: AgentServerMessage) => void;
}

export interface CompactionInput {
  runId: string;
  conversationId: string;
  model: ModelConfig;
  signal: AbortSignal;
  /** Keep the newest user message after the summary (automatic compaction mid-turn). */
  keepCurrentQuery: boolean;
}

export async function compactHistory(deps: CompactionDeps, input: CompactionInput): Promise<Usage> {
  const { store } = deps;
  const history = store.history(input.conversationId);
  const firstNonSystem = history.find((m) => m.message.role !== "system");
  if (!firstNonSystem) throw new AppError("failed_precondition", "there is nothing to summarize yet");
  deps.emit(updates.summaryStarted());
  const tail = input.keepCurrentQuery ? currentQuery(history) : undefined;
  // The context stays in force after the summary: it is kept as it was, not summarised away.
  const context = history.findLast((m) => m.messageKey?.startsWith(REQUEST_CONTEXT_KEY_PREFIX));
  const toSummarize = history.filter((m) => m !== tail).map((m) => m.message);

  const result = await callModel(
    { store, provider: deps.provider, emit: deps.emit },
    {
      runId: input.runId,
      conversationId: input.conversationId,
      model: input.model,
      messages: [...projectHistory(toSummarize), { role: "user", content: compactionPrompt.trim() }],
      tools: [],
      forward: false,
      signal: input.signal,
    },
  );
  const summary = result.assistant.content.trim();
  if (!summary) throw new AppError("unavailable", "the model returned an empty summary");
  input.signal.throwIfAborted();

  store.branchBefore(input.conversationId, firstNonSystem.seq, input.runId);
  store.appendMessages(input.conversationId, input.runId, [
    { message: { role: "user", content: `${SUMMARY_OPEN}${summary}${SUMMARY_CLOSE}` }, messageKey: `${SUMMARY_KEY_PREFIX}${input.runId}` },
    ...(context?.messageKey ? [{ message: context.message, messageKey: context.messageKey }] : []),
    ...(tail
      ? [{ message: tail.message, ...(tail.messageKey && { messageKey: tail.messageKey }), ...(tail.mode !== null && { mode: tail.mode }) }]
      : []),
  ]);
  store.countSummary(input.conversationId);
  deps.emit(updates.summary(summary));
  deps.emit(updates.summaryCompleted());
  return result.usage;
}

/** The summary text of a stored summary message. */
export function summaryText(message: ChatMessage): string {
  const content = message.role === "user" ? message.content : "";
  return content.startsWith(SUMMARY_OPEN) && content.endsWith(SUMMARY_CLOSE)
    ? content.slice(SUMMARY_OPEN.length, -SUMMARY_CLOSE.length)
    : content;
}

/** Rough token estimate, enough to decide before a call overflows (the one the budget uses too). */
export function estimateTokens(messages: ChatMessage[], tools: ToolDefinition[]): number {
  return inputTokenEstimate(messages, tools);
}

/** Whether a request of this size would overflow the model's window (leaving room for output). */
export function exceedsWindow(model: ModelConfig, estimatedTokens: number): boolean {
  const reserve = Math.min(model.maxOutputTokens ?? 8_192, Math.floor(model.contextWindow / 4));
  return estimatedTokens > model.contextWindow - reserve;
}

/** The newest user message, if the history ends with it (the query being answered). */
function currentQuery(history: readonly StoredMessage[]): StoredMessage | undefined {
  const last = history.at(-1);
  return last?.message.role === "user" && last.messageKey?.startsWith(USER_MESSAGE_KEY_PREFIX) ? last : undefined;
}
