// Compaction: when the history no longer fits (or the user asks with
// /summarize), the model summarises it in a call without tools, and the live
// history becomes the system prompt, the summary, the latest request context
// (docs/request-context.md) and the current query. The summary call has a
// deadline; past it, or interrupted by the user's new message, the oldest
// messages are dropped instead (docs/protocol.md#compaction). The replaced
// messages stay stored (off the live branch) and in the checkpoint's summary archive.
import type { KeyRouting } from "../../provider/model-keys.ts";
import type { SpanScope } from "../../telemetry/run-trace.ts";
import compactionPrompt from "../../../prompt/compaction.md";
import type { AgentServerMessage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { updates } from "../../proto/frames.ts";
import { AppError } from "../../core/errors.ts";
import type { ConversationStore, NewMessage, StoredMessage } from "../store/conversation-store.ts";
import { emptyUsage, type ChatMessage, type ModelConfig, type Provider, type ToolDefinition, type Usage } from "../../provider/types.ts";
import { isContextOverflow } from "../../provider/failure.ts";
import { callModel } from "./model-call.ts";
import { projectHistory } from "./history-projection.ts";
import { USER_MESSAGE_KEY_PREFIX } from "./checkpoint.ts";
import { REQUEST_CONTEXT_KEY_PREFIX } from "../context/context-message.ts";
import { estimateTokens, exceedsWindow, inputDoesNotFit } from "./context-window.ts";
import { fallbackSummary } from "./compaction-fallback.ts";

export const SUMMARY_KEY_PREFIX = "summary:";
const SUMMARY_OPEN = "<conversation_summary>\n";
const SUMMARY_CLOSE = "\n</conversation_summary>";
const SUMMARY_CUT_NOTE = "(This summary was cut off at the model's output limit.)";

export interface CompactionDeps {
  store: ConversationStore;
  provider: Provider;
  /** Another model's provider: the summary's own model (its role) and the fallbacks (docs/providers.md#roles). */
  providerFor?: (model: ModelConfig) => Provider;
  keys?: KeyRouting;
  trace?: SpanScope;
  emit: (message: AgentServerMessage) => void;
}

export interface CompactionInput {
  runId: string;
  conversationId: string;
  model: ModelConfig;
  /** Stops the summary call: the run's cancel, or in a run the user's new message (then the fallback is used). */
  signal: AbortSignal;
  /** The run's own signal: when it fires, the compaction fails instead. */
  runSignal: AbortSignal;
  /** Keep the newest user message after the summary (automatic compaction mid-turn). */
  keepCurrentQuery: boolean;
  /** How long the summary call may take before the fallback is used. */
  deadlineMs: number;
  /** The definitions every later request of the run carries: they take room in the window too. */
  tools: ToolDefinition[];
}

export interface Compacted {
  /** What the summary call counted (nothing when it did not finish). */
  usage: Usage;
  /** The estimated input of the compacted history: how full the context is now. */
  estimatedTokens: number;
}

/** The model's summary, or why the fallback stands in for it. */
type Written = { kind: "summary"; text: string; usage: Usage } | { kind: "fallback"; reason: string; usage: Usage };

export async function compactHistory(deps: CompactionDeps, input: CompactionInput): Promise<Compacted> {
  const { store } = deps;
  const history = store.history(input.conversationId);
  const firstNonSystem = history.find((m) => m.message.role !== "system");
  if (!firstNonSystem) throw new AppError("failed_precondition", "there is nothing to summarize yet");
  const tail = input.keepCurrentQuery ? currentQuery(history) : undefined;
  // The context stays in force after the summary: it is kept as it was, not summarised away.
  const context = history.findLast((m) => isContextMessage(m));
  const system = history.filter((m) => m.message.role === "system");
  // Refused before any call when not even the shortest compacted history would fit.
  const floor = estimateTokens(projectHistory([...system, ...optional(context), ...optional(tail)].map((m) => m.message)), input.tools);
  if (exceedsWindow(input.model, floor)) throw inputDoesNotFit(input.model, floor);

  deps.emit(updates.summaryStarted());
  const written = await writeSummary(
    deps,
    input,
    history.filter((m) => m !== tail).map((m) => m.message),
  );
  const rest: NewMessage[] = [];
  let text: string;
  if (written.kind === "summary") {
    text = written.text;
    if (tail) rest.push(copyOf(tail));
  } else {
    const older = history.filter(
      (m) => m.message.role !== "system" && !isContextMessage(m) && !m.messageKey?.startsWith(SUMMARY_KEY_PREFIX),
    );
    const fallback = fallbackSummary(older, input.model, written.reason);
    if (!fallback) throw new AppError("unavailable", `the conversation could not be summarized: ${written.reason}`);
    // An earlier summary is not dropped with the oldest messages: it stands before the note.
    const earlier = history.findLast((m) => m.messageKey?.startsWith(SUMMARY_KEY_PREFIX));
    text = earlier ? `${summaryText(earlier.message)}\n\n${fallback.note}` : fallback.note;
    rest.push(...fallback.kept.map(copyOf));
  }
  // Each compaction moves messages out under an id of its own: a run may compact more than once.
  const compactionId = `${input.runId}/${(store.conversation(input.conversationId)?.summaryCount ?? 0) + 1}`;
  const compacted: NewMessage[] = [
    { message: { role: "user", content: `${SUMMARY_OPEN}${text}${SUMMARY_CLOSE}` }, messageKey: `${SUMMARY_KEY_PREFIX}${compactionId}` },
    ...(context ? [copyOf(context)] : []),
    ...rest,
  ];
  // Measured before the history changes: a compaction that cannot make it fit leaves it as it was.
  const estimatedTokens = estimateTokens(projectHistory([...system, ...compacted].map((m) => m.message)), input.tools);
  if (exceedsWindow(input.model, estimatedTokens)) throw inputDoesNotFit(input.model, estimatedTokens);
  store.branchBefore(input.conversationId, firstNonSystem.seq, compactionId);
  store.appendMessages(input.conversationId, input.runId, compacted);
  store.countSummary(input.conversationId);
  deps.emit(updates.summary(text));
  deps.emit(updates.summaryCompleted());
  return { usage: written.usage, estimatedTokens };
}

/** The summary call, bounded by its deadline; a stop other than the run's means the fallback. */
async function writeSummary(deps: CompactionDeps, input: CompactionInput, messages: ChatMessage[]): Promise<Written> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), input.deadlineMs);
  // The model's summary role when it has one: a cheaper model may write what a dearer one reads.
  const writer = deps.providerFor && input.model.compactionModel ? input.model.compactionModel : input.model;
  const callDeps = writer === input.model ? deps : { ...deps, provider: deps.providerFor!(writer) };
  try {
    const result = await callModel(callDeps, {
      runId: input.runId,
      conversationId: input.conversationId,
      model: writer,
      messages: [...projectHistory(messages), { role: "user", content: compactionPrompt.trim() }],
      tools: [],
      forward: false,
      signal: AbortSignal.any([input.signal, deadline.signal]),
    });
    const text = result.assistant.content.trim();
    // A refusal is no summary: it would replace the whole conversation with the refusal's text.
    if (result.finish === "refusal") return { kind: "fallback", reason: "the model refused to summarize it", usage: result.usage };
    if (!text) return { kind: "fallback", reason: "the model wrote an empty summary", usage: result.usage };
    const cut = result.finish === "length" ? `\n\n${SUMMARY_CUT_NOTE}` : "";
    return { kind: "summary", text: `${text}${cut}`, usage: result.usage };
  } catch (error) {
    input.runSignal.throwIfAborted();
    const fallback = (reason: string): Written => ({ kind: "fallback", reason, usage: emptyUsage() });
    if (deadline.signal.aborted) return fallback(`the summary was not written within ${Math.round(input.deadlineMs / 1000)} s`);
    if (input.signal.aborted) return fallback("a new message from the user interrupted the summary");
    if (isContextOverflow(error)) return fallback("the conversation is too long for the model to summarize");
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The summary text of a stored summary message. */
export function summaryText(message: ChatMessage): string {
  const content = message.role === "user" ? message.content : "";
  return content.startsWith(SUMMARY_OPEN) && content.endsWith(SUMMARY_CLOSE)
    ? content.slice(SUMMARY_OPEN.length, -SUMMARY_CLOSE.length)
    : content;
}

/** The newest user message, if the history ends with it (the query being answered). */
function currentQuery(history: readonly StoredMessage[]): StoredMessage | undefined {
  const last = history.at(-1);
  return last?.message.role === "user" && last.messageKey?.startsWith(USER_MESSAGE_KEY_PREFIX) ? last : undefined;
}

function isContextMessage(m: StoredMessage): boolean {
  return m.messageKey?.startsWith(REQUEST_CONTEXT_KEY_PREFIX) ?? false;
}

/** A stored message to append again after the summary, as it was. */
function copyOf(m: StoredMessage): NewMessage {
  return {
    message: m.message,
    ...(m.messageKey && { messageKey: m.messageKey }),
    ...(m.mode !== null && { mode: m.mode }),
    ...(m.toolCard && { toolCard: m.toolCard }),
  };
}

function optional<T>(value: T | undefined): T[] {
  return value === undefined ? [] : [value];
}
