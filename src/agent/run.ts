// One run of the agent: prepare the history (recover, branch, append the user's
// message), then model call → tool round → model call … until the model answers
// without tools; checkpoints between, turn_ended and the checkpoint tail last.
import type { AgentServerMessage, ConversationStateStructure } from "../proto/gen/agent/v1/agent_pb.ts";
import { updates } from "../proto/frames.ts";
import { AppError } from "../proto/connect/error.ts";
import type { ConversationStore, NewMessage } from "../store/conversation-store.ts";
import {
  addUsage,
  emptyUsage,
  type ChatMessage,
  type ModelConfig,
  type Provider,
  type ToolCallPart,
  type Usage,
} from "../provider/types.ts";
import { callModel } from "./model-call.ts";
import { SYSTEM_PROMPT } from "./prompt.ts";
import { runFailure } from "./errors.ts";
import type { RequestChannel } from "./request-channel.ts";
import { prepareCheckpoint } from "./checkpoint-sync.ts";
import { USER_MESSAGE_KEY_PREFIX } from "./checkpoint.ts";
import { runToolRound } from "./tool-round.ts";
import { readClientBlob, recoverHistory } from "./recovery.ts";
import { projectHistory } from "./history-projection.ts";
import type { Tool, ToolSessionState } from "./tools/types.ts";
import { compactHistory, estimateTokens, exceedsWindow, SUMMARY_KEY_PREFIX, summaryText } from "./compaction.ts";
import { isContextOverflow } from "./context-overflow.ts";
import { interactionUpdate } from "../proto/frames.ts";
import { errorKind } from "../proto/connect/log-safe.ts";
import type { RunControl, Injection } from "./run-control.ts";

/** A run that keeps calling tools stops here rather than looping forever. */
export const MAX_MODEL_CALLS_PER_RUN = 100;

export type RunAction =
  | { kind: "user_message"; messageId: string; text: string; textBlobId?: Uint8Array }
  | { kind: "resume" }
  | { kind: "summarize" };

export interface RunInput {
  runId: string;
  requestId: string;
  conversationId: string;
  model: ModelConfig;
  action: RunAction;
  tools: readonly Tool[];
  state: ToolSessionState;
  /** The client's copy of the conversation, used when this object has none. */
  clientState?: { state: ConversationStateStructure; prefetched: Map<string, Uint8Array> };
  signal: AbortSignal;
  resolveSubagentModel(requested: string | undefined, subagentType: string): string;
  /** Steers the run from outside (injections); created by the caller so it can reach it. */
  control: RunControl;
  /** Input that arrived after the previous run stopped taking it; delivered after this run's own message. */
  queued?: Injection[];
}

export interface RunDeps {
  store: ConversationStore;
  provider: Provider;
  channel: RequestChannel;
  emit: (message: AgentServerMessage) => void;
}

export type RunOutcome =
  | { status: "completed"; usage: Usage }
  | { status: "cancelled"; usage: Usage }
  | { status: "failed"; usage: Usage; error: AppError };

export async function runAgent(deps: RunDeps, input: RunInput): Promise<RunOutcome> {
  let usage = emptyUsage();
  let lastCallTokens = 0;
  const prepare = (pending?: Extract<ChatMessage, { role: "assistant" }>) =>
    prepareCheckpoint(deps, {
      history: deps.store.history(input.conversationId),
      ...summaryOf(deps.store, input.conversationId),
      ...(pending && { pending }),
      usedTokens: lastCallTokens,
      maxTokens: input.model.contextWindow,
      mode: input.state.mode,
      todos: input.state.todos,
    });
  // A stopped run publishes nothing more: its checkpoints would land in another run's stream.
  const checkpoint = async (pending?: Extract<ChatMessage, { role: "assistant" }>) => {
    const message = await prepare(pending);
    input.signal.throwIfAborted();
    deps.emit(message);
  };
  const { control } = input;
  let compacted = false;
  const compact = async (keepCurrentQuery: boolean) => {
    compacted = true;
    const summaryUsage = await compactHistory(deps, { ...input, keepCurrentQuery });
    usage = addUsage(usage, summaryUsage);
    lastCallTokens = summaryUsage.outputTokens;
  };
  try {
    await prepareHistory(deps, input);
    if (input.action.kind === "summarize") {
      control.end("finishing"); // input arriving during a summary waits for the next turn
      await compact(false);
      const final = await prepare();
      input.signal.throwIfAborted();
      deps.emit(updates.turnEnded(usage));
      for (let i = 0; i < 3; i++) deps.emit(final);
      return { status: "completed", usage };
    }
    for (const queued of input.queued ?? []) control.inject(queued);
    // Resume: tool calls left pending by an interrupted run run first, before any model call.
    const pending = pendingCalls(deps.store, input.conversationId);
    if (pending) {
      await runRound(deps, input, "resume", pending.calls);
      await checkpoint();
    }
    for (let call = 0; ; call++) {
      if (call >= MAX_MODEL_CALLS_PER_RUN) {
        throw new AppError("resource_exhausted", `the run stopped after ${MAX_MODEL_CALLS_PER_RUN} model calls`);
      }
      input.signal.throwIfAborted();
      deliverInjections(deps, input);
      let messages = projectHistory(deps.store.history(input.conversationId).map((m) => m.message));
      const tools = input.tools.map((t) => t.definition);
      if (!compacted && exceedsWindow(input.model, estimateTokens(messages, tools))) {
        await compact(true);
        messages = projectHistory(deps.store.history(input.conversationId).map((m) => m.message));
      }
      const cycle = control.begin("model");
      let result: Awaited<ReturnType<typeof callModel>>;
      try {
        result = await callModel(deps, {
          runId: input.runId,
          conversationId: input.conversationId,
          model: input.model,
          messages,
          tools,
          cardFor: (name) => input.tools.find((t) => t.name === name)?.emptyCard(),
          signal: cycle,
        });
      } catch (err) {
        if (control.interrupted(cycle)) continue; // injected context: restart this model cycle only
        if (!compacted && isContextOverflow(err)) {
          control.end();
          await compact(true); // at most once per run
          continue;
        }
        throw err;
      } finally {
        control.end();
      }
      usage = addUsage(usage, result.usage);
      lastCallTokens = result.usage.inputTokens + result.usage.outputTokens;
      input.signal.throwIfAborted();
      deps.store.appendMessages(input.conversationId, input.runId, [{ message: result.assistant }]);
      const calls = result.assistant.toolCalls ?? [];
      if (calls.length === 0) {
        if (control.hasQueued) continue; // the model answers what arrived meanwhile
        break;
      }
      await checkpoint(result.assistant); // staged: calls pending
      await runRound(deps, input, result.modelCallId, calls);
      await checkpoint(); // settled: the barrier before the next model call
    }
    control.end("finishing");
    // The fixed tail: blobs acknowledged, turn_ended, then the final checkpoint three
    // times (Cursor's staged → settled → settled; no calls are pending, so they are equal).
    const final = await prepare();
    input.signal.throwIfAborted();
    // Emitted without an await in between, so a cancel cannot split the tail.
    deps.emit(updates.turnEnded(usage));
    for (let i = 0; i < 3; i++) deps.emit(final);
    return { status: "completed", usage };
  } catch (err) {
    if (input.signal.aborted) return { status: "cancelled", usage };
    const error = runFailure(err, input.model.name);
    if (error.code === "internal") console.error("byok-edge: run failed", input.runId, errorKind(error.cause));
    return { status: "failed", usage, error };
  }
}

/** Runs a tool round; an injection interrupts it (unfinished calls get a synthetic result). */
async function runRound(deps: RunDeps, input: RunInput, modelCallId: string, calls: ToolCallPart[]): Promise<void> {
  const signal = input.control.begin("tools");
  try {
    await runToolRound(deps, {
      runId: input.runId,
      requestId: input.requestId,
      conversationId: input.conversationId,
      modelCallId,
      calls,
      tools: input.tools,
      state: input.state,
      signal,
      runSignal: input.signal,
      resolveSubagentModel: input.resolveSubagentModel,
    });
  } finally {
    input.control.end();
  }
}

/** Queued injections enter the history (after any interrupted round's results) and are announced. */
function deliverInjections(deps: RunDeps, input: RunInput): void {
  const keyOf = (i: Injection) => (i.kind === "system" ? `context:${i.id}` : `${USER_MESSAGE_KEY_PREFIX}${i.messageId || i.id}`);
  // A message already in the history (the client re-sent it as a run_request) is not delivered twice.
  const injections = input.control.take().filter((i) => !deps.store.findByKey(input.conversationId, keyOf(i)));
  if (injections.length === 0) return;
  const batchId = crypto.randomUUID();
  deps.store.appendMessages(
    input.conversationId,
    input.runId,
    injections.map((i) => ({ message: { role: "user" as const, content: i.text }, messageKey: keyOf(i), mode: input.state.mode })),
  );
  const deliveredAtMs = BigInt(Date.now());
  for (const injection of injections) {
    deps.emit(
      interactionUpdate({
        case: "contextInjectionState",
        value: {
          injectionId: injection.id,
          state: { state: { case: "delivered", value: { step: 0, deliveryBatchId: batchId, deliveredAtMs } } },
        },
      }),
    );
    if (injection.kind === "system") continue;
    deps.emit(
      interactionUpdate({
        case: "userMessageAppended",
        value: { userMessage: { text: injection.text, messageId: injection.messageId } },
      }),
    );
  }
}

async function prepareHistory(deps: RunDeps, input: RunInput): Promise<void> {
  const { store } = deps;
  if (store.history(input.conversationId).length === 0 && input.clientState) {
    const recovered = await recoverHistory(deps.channel, input.clientState.state, input.clientState.prefetched);
    store.appendMessages(input.conversationId, input.runId, recovered);
  }
  const items: NewMessage[] = [];
  if (store.history(input.conversationId).length === 0) {
    items.push({ message: { role: "system", content: SYSTEM_PROMPT }, messageKey: "system" });
  }
  if (input.action.kind === "user_message" && input.action.textBlobId) {
    const text = await readClientBlob(deps.channel, input.action.textBlobId, input.clientState?.prefetched);
    if (new TextEncoder().encode(JSON.stringify(text)).byteLength > 1_000_000) {
      throw new AppError("invalid_argument", "the message is larger than 1 MB");
    }
    input.action = { ...input.action, text };
  }
  if (input.action.kind === "user_message") {
    const key = `${USER_MESSAGE_KEY_PREFIX}${input.action.messageId || input.runId}`;
    const existing = store.findByKey(input.conversationId, key);
    const sameText = existing?.message.role === "user" && existing.message.content === input.action.text;
    // The same message again, nothing answered since (a retry after a failure): keep it once.
    const unanswered = existing !== undefined && store.history(input.conversationId).at(-1)?.seq === existing.seq;
    if (!(sameText && unanswered)) {
      // An earlier message re-sent (edited, or re-run from there): branch before it.
      if (existing) store.branchBefore(input.conversationId, existing.seq, input.runId);
      items.push({ message: { role: "user", content: input.action.text }, messageKey: key, mode: input.state.mode });
    }
  }
  if (input.action.kind === "resume" && endsWithAnswer(store.history(input.conversationId).at(-1)?.message)) {
    // Stored once, so later calls of this run (and later turns) see the same prefix.
    items.push({ message: { role: "user", content: RESUME_NUDGE }, messageKey: `resume:${input.runId}` });
  }
  store.appendMessages(input.conversationId, input.runId, items);
}

const RESUME_NUDGE = "Continue from where you left off.";

function endsWithAnswer(message: ChatMessage | undefined): boolean {
  return message?.role === "assistant" && !message.toolCalls?.length;
}

/** The summary that replaced earlier history, for the checkpoint's summary fields. */
function summaryOf(store: ConversationStore, conversationId: string) {
  const runId = store.lastSummaryRun(conversationId);
  if (!runId) return {};
  const key = `${SUMMARY_KEY_PREFIX}${runId}`;
  const message = store.findByKey(conversationId, key);
  if (!message) return {};
  return {
    summary: {
      text: summaryText(message.message),
      key,
      summarized: store.supersededBy(runId),
      count: store.conversation(conversationId)?.summaryCount ?? 1,
    },
  };
}

/** The last assistant message's tool calls that have no result yet (an interrupted round). */
function pendingCalls(store: ConversationStore, conversationId: string) {
  const history = store.history(conversationId);
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!.message;
    if (m.role === "user" || m.role === "system") return undefined;
    if (m.role !== "assistant") continue;
    const answered = new Set(history.slice(i + 1).flatMap((h) => (h.message.role === "tool" ? [h.message.toolCallId] : [])));
    const calls = (m.toolCalls ?? []).filter((c) => !answered.has(c.id));
    return calls.length > 0 ? { calls } : undefined;
  }
  return undefined;
}
