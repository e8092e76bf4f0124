// One run of the agent: prepare the history (recover, branch, append the user's
// message), then model call → tool round → model call … until the model answers
// without tools; checkpoints between, turn_ended and the checkpoint tail last.
import type { KeyRouting } from "../../provider/model-keys.ts";
import type { SpanScope } from "../../telemetry/run-trace.ts";
import type { AgentServerMessage, RequestContext, SelectedImage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { updates } from "../../proto/frames.ts";
import { AppError } from "../../core/errors.ts";
import { type ConversationStore, isAnswer, type NewMessage } from "../store/conversation-store.ts";
import {
  addUsage,
  emptyUsage,
  type ChatMessage,
  type ModelConfig,
  type Provider,
  type ToolCallPart,
  type ToolDefinition,
  type Usage,
} from "../../provider/types.ts";
import { withImagesDescribed } from "./image-descriptions.ts";
import { callModel } from "./model-call.ts";
import { modelRefused } from "./run-errors.ts";
import { SYSTEM_PROMPT } from "./prompt.ts";
import { settleRun, type RunEnding, type RunOutcome } from "./settle.ts";
import type { RequestChannel } from "./request-channel.ts";
import { prepareCheckpoint } from "./checkpoint-sync.ts";
import { USER_MESSAGE_KEY_PREFIX } from "./checkpoint.ts";
import { runToolRound } from "./tool-round.ts";
import { type ClientCopy, followClientCopy } from "./client-copy.ts";
import { readClientBlob } from "./client-blob.ts";
import { userImages } from "./user-images.ts";
import { projectHistory } from "./history-projection.ts";
import type { Tool, ToolSessionState } from "../tools/tool-types.ts";
import { type Compacted, compactHistory, SUMMARY_KEY_PREFIX, summaryText } from "./compaction.ts";
import { estimateTokens, exceedsWindow } from "./context-window.ts";
import { isContextOverflow } from "../../provider/failure.ts";
import type { RunControl, Injection } from "./run-control.ts";
import type { SearchConfig } from "../search/search-types.ts";
import type { ContextSource } from "../context/context-source.ts";
import { resolveContext } from "../context/resolve.ts";
import { contextEntry, latestContext } from "../context/context-message.ts";
import { mergeContexts } from "../context/parts.ts";
import { toolsForContext } from "../context/context-tools.ts";
import { contextInForce, keepContext } from "../context/in-force.ts";
import { USER_TEXT_MAX_BYTES } from "./message-limits.ts";
import type { ConversationCodeMode } from "../code-mode/conversation-code-mode.ts";
import { withCodeMode } from "../code-mode/code-mode-tools.ts";

/** A run that keeps calling tools stops here rather than looping forever. */
const MAX_MODEL_CALLS_PER_RUN = 100;
/** Ends an answer the provider cut off, so the next model call knows it was not finished. */
const CUT_OFF_NOTE = "\n\n[This answer was cut off: the model provider's stream failed here.]";

export type RunAction =
  | { kind: "user_message"; messageId: string; text: string; textBlobId?: Uint8Array; images?: readonly SelectedImage[] }
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
  /** The client's copy of the conversation: it wins where it can be matched (docs/protocol.md#the-clients-copy). */
  clientState?: ClientCopy;
  signal: AbortSignal;
  resolveSubagentModel(requested: string | undefined, subagentType: string): string;
  /** The configured web search backend, if any: WebSearch is offered only with one, and not when the context switches it off. */
  search?: SearchConfig;
  /** Steers the run from outside (injections); created by the caller so it can reach it. */
  control: RunControl;
  /** Input that arrived after the previous run stopped taking it; delivered after this run's own message. */
  queued?: Injection[];
  /** The request context the action carries, and the blobs the client pushed with it (docs/request-context.md). */
  context?: { source: ContextSource; prefetched: Map<string, Uint8Array> };
  /** How long the run waits for each answer of the client about its request context, and for each blob it holds (get_blob). */
  contextTimeoutMs: number;
  /** How long a compaction's summary call may take before the oldest messages are dropped instead (docs/protocol.md#compaction). */
  compactionTimeoutMs: number;
  /**
   * The request context in force (set once the run has read it). The run's tools follow from it as
   * it was when the run started; an injected context changes it, not the tools (docs/request-context.md).
   */
  requestContext?: RequestContext;
}

export interface RunDeps {
  store: ConversationStore;
  provider: Provider;
  /** Another model's provider, for the run model's fallbacks (docs/providers.md#fallbacks). */
  providerFor?: (model: ModelConfig) => Provider;
  /** The team's key pools, for models with several keys (docs/providers.md#keys-behind-one-model). */
  keys?: KeyRouting;
  /** The run's span, when it is traced (docs/telemetry.md#traces): provider and tool calls go under it. */
  trace?: SpanScope;
  channel: RequestChannel;
  emit: (message: AgentServerMessage) => void;
  /** The conversation's code mode, for models configured with `code_mode` (docs/code-mode.md#cursor-runs). */
  codeMode?: ConversationCodeMode;
}

export async function runAgent(deps: RunDeps, input: RunInput): Promise<RunOutcome> {
  const tally = new RunTally();
  let ending: RunEnding;
  const endCodeMode = input.model.codeMode ? deps.codeMode?.track(input.runId, input.signal) : undefined;
  try {
    const carried = await prepareHistory(deps, input);
    // Without a context of its own the run keeps the conversation's last one (docs/request-context.md).
    const requestContext = await contextInForce(deps.store, input.conversationId, carried);
    const run = withCodeModeTools(deps, {
      ...input,
      ...(requestContext && { requestContext }),
      tools: toolsForContext(input.tools, requestContext),
    });
    if (run.action.kind === "summarize") await summarize(deps, run, tally);
    else await converse(deps, run, tally, carried);
    ending = { kind: "completed" };
  } catch (error) {
    ending = { kind: "threw", error };
  }
  const outcome = settleRun(deps, { runId: input.runId, modelName: input.model.name, signal: input.signal }, ending);
  endCodeMode?.();
  return outcome;
}

/** A code-mode model's run also gets exec and wait, after its own tools. */
function withCodeModeTools(deps: RunDeps, input: RunInput): RunInput {
  if (!input.model.codeMode || !deps.codeMode) return input;
  const tools = withCodeMode(input.tools, {
    host: deps.codeMode,
    runId: input.runId,
    runSignal: input.signal,
    channel: deps.channel,
    record: (message) => deps.store.appendMessages(input.conversationId, input.runId, [{ message }]),
  });
  return { ...input, tools };
}

/** What a run has spent so far, and whether it compacted since its last model call. */
class RunTally {
  usage = emptyUsage();
  /** Tokens of the last call (or the compacted history): how full the context is, for the checkpoint. */
  lastCallTokens = 0;
  /** A provider's "prompt too long" right after a compaction is final: compacting again cannot help. */
  compactedSinceCall = false;

  addCall(usage: Usage): void {
    this.compactedSinceCall = false;
    this.usage = addUsage(this.usage, usage);
    this.lastCallTokens = usage.inputTokens + usage.outputTokens;
  }

  addSummary(compacted: Compacted): void {
    this.compactedSinceCall = true;
    this.usage = addUsage(this.usage, compacted.usage);
    this.lastCallTokens = compacted.estimatedTokens;
  }
}

/** `/summarize` or summarize_action: compact the history, then the fixed tail. */
async function summarize(deps: RunDeps, input: RunInput, tally: RunTally): Promise<void> {
  input.control.finishing(); // input arriving during a summary waits for the next turn
  tally.addSummary(
    await compactHistory(deps, {
      ...input,
      runSignal: input.signal,
      keepCurrentQuery: false,
      deadlineMs: input.compactionTimeoutMs,
      tools: [],
    }),
  );
  await finishTurn(deps, input, tally);
}

/** Model call → tool round → model call … until the model answers without tools; `carried`: the action's own context. */
async function converse(deps: RunDeps, input: RunInput, tally: RunTally, carried: RequestContext | undefined): Promise<void> {
  const { control } = input;
  for (const queued of input.queued ?? []) control.inject(queued);
  // Resume: tool calls left pending by an interrupted run run first, before any model call.
  const pending = pendingCalls(deps.store, input.conversationId);
  if (pending) {
    await runRound(deps, input, "resume", pending.calls);
    // The resumed calls' results first; then the resume's request context (docs/request-context.md).
    deps.store.appendMessages(input.conversationId, input.runId, await contextItems(deps.store, input.conversationId, carried));
    await checkpoint(deps, input, tally);
  }
  const tools = input.tools.map((t) => t.definition);
  for (let call = 0; ; call++) {
    if (call >= MAX_MODEL_CALLS_PER_RUN) {
      throw new AppError("resource_exhausted", `the run stopped after ${MAX_MODEL_CALLS_PER_RUN} model calls`);
    }
    input.signal.throwIfAborted();
    await deliverInjections(deps, input);
    const messages = liveMessages(deps, input);
    if (exceedsWindow(input.model, estimateTokens(messages, tools))) {
      // Whenever the context fills, however often in one run; then what arrived meanwhile, and measure again.
      await compact(deps, input, tally, tools);
      continue;
    }
    const cycle = await modelCycle(deps, input, messages, tools);
    if (cycle.kind === "interrupted") continue; // injected context: restart this model cycle only
    if (cycle.kind === "overflow") {
      if (tally.compactedSinceCall) throw cycle.error;
      await compact(deps, input, tally, tools);
      continue;
    }
    const { result } = cycle;
    tally.addCall(result.usage);
    input.signal.throwIfAborted();
    if (result.finish === "refusal") {
      // Its text stays (the user saw it); none of its tool calls runs, or enters the history.
      const { toolCalls: refused, ...said } = result.assistant;
      if (said.content) deps.store.appendMessages(input.conversationId, input.runId, [{ message: said }]);
      closeCards(deps, result.modelCallId, refused ?? []);
      throw modelRefused(input.model.name);
    }
    const calls = result.assistant.toolCalls ?? [];
    if (result.finish === "length" && calls.length > 0) {
      // Cut by the output limit inside its tool calls: none runs (docs/protocol.md#truncated-answers).
      deps.store.appendMessages(input.conversationId, input.runId, cutToolCalls(result.assistant, calls));
      closeCards(deps, result.modelCallId, calls);
      await checkpoint(deps, input, tally);
      continue;
    }
    if (result.finish === "length" && !result.assistant.content.trim()) {
      throw new AppError(
        "resource_exhausted",
        `${input.model.name} reached its output limit before it wrote anything; raise the model's max_output_tokens or ask for less`,
      );
    }
    deps.store.appendMessages(input.conversationId, input.runId, [{ message: result.assistant }]);
    if (calls.length === 0) {
      if (control.hasQueued) continue; // the model answers what arrived meanwhile
      break;
    }
    await checkpoint(deps, input, tally, result.assistant); // staged: calls pending
    await runRound(deps, input, result.modelCallId, calls);
    await checkpoint(deps, input, tally); // settled: the barrier before the next model call
  }
  control.finishing();
  await finishTurn(deps, input, tally);
}

/** What the model is told of calls cut by its output limit: nothing ran, and it may try again smaller. */
const CUT_TOOL_CALL =
  "This call was cut off at your output limit before its arguments were complete, so it was not run. Call it again with smaller arguments (for example, write a long file in several parts).";

/** The answer with its cut calls (arguments emptied: they are not JSON) and an error result for each. */
function cutToolCalls(assistant: Extract<ChatMessage, { role: "assistant" }>, calls: ToolCallPart[]): NewMessage[] {
  return [
    { message: { ...assistant, toolCalls: calls.map((call) => ({ ...call, arguments: "{}" })) } },
    ...calls.map((call) => ({
      message: { role: "tool" as const, toolCallId: call.id, name: call.name, content: CUT_TOOL_CALL, isError: true },
    })),
  ];
}

/** Calls that will not run had their cards streamed: without tool_call_completed the client's card spins forever. */
function closeCards(deps: RunDeps, modelCallId: string, calls: readonly ToolCallPart[]): void {
  for (const call of calls) deps.emit(updates.toolCallCompleted(call.id, modelCallId, { toolCallId: call.id }));
}

type ModelCycle =
  | { kind: "answered"; result: Awaited<ReturnType<typeof callModel>> }
  /** Injected input interrupted the call; the run goes on. */
  | { kind: "interrupted" }
  /** The provider said the prompt is too long. */
  | { kind: "overflow"; error: unknown };

/** One model call, interruptible by injected input. */
async function modelCycle(deps: RunDeps, input: RunInput, messages: ChatMessage[], tools: ToolDefinition[]): Promise<ModelCycle> {
  const signal = input.control.begin("model");
  try {
    const described = await withImagesDescribed(deps, { ...input, signal }, messages);
    const result = await callModel(deps, {
      runId: input.runId,
      conversationId: input.conversationId,
      model: input.model,
      messages: described,
      tools,
      cardFor: (name) => input.tools.find((t) => t.name === name)?.emptyCard(),
      signal,
      // What the user saw stays in the history, so the next turn's model sees it too.
      onCutOff: (text) =>
        deps.store.appendMessages(input.conversationId, input.runId, [
          { message: { role: "assistant", content: `${text}${CUT_OFF_NOTE}` } },
        ]),
    });
    return { kind: "answered", result };
  } catch (error) {
    if (input.control.interrupted(signal)) return { kind: "interrupted" };
    if (isContextOverflow(error)) return { kind: "overflow", error };
    throw error;
  } finally {
    input.control.end();
  }
}

/** Compaction within a run: the user's new message interrupts it (docs/protocol.md#compaction). */
async function compact(deps: RunDeps, input: RunInput, tally: RunTally, tools: ToolDefinition[]): Promise<void> {
  const signal = input.control.begin("compaction");
  try {
    const compacted = await compactHistory(deps, {
      ...input,
      signal,
      runSignal: input.signal,
      keepCurrentQuery: true,
      deadlineMs: input.compactionTimeoutMs,
      tools,
    });
    tally.addSummary(compacted);
  } finally {
    input.control.end();
  }
  // The client holds the compacted history before the next model call, so a failure then keeps it.
  await checkpoint(deps, input, tally);
}

function liveMessages(deps: RunDeps, input: RunInput): ChatMessage[] {
  return projectHistory(deps.store.history(input.conversationId).map((m) => m.message));
}

function prepareFor(deps: RunDeps, input: RunInput, tally: RunTally, pending?: Extract<ChatMessage, { role: "assistant" }>) {
  return prepareCheckpoint(deps, {
    history: deps.store.history(input.conversationId),
    ...summaryOf(deps.store, input.conversationId),
    ...(pending && { pending }),
    usedTokens: tally.lastCallTokens,
    maxTokens: input.model.contextWindow,
    mode: input.state.mode,
    todos: input.state.todos,
  });
}

/** A checkpoint between steps. A stopped run publishes nothing more: it would land in another run's stream. */
async function checkpoint(deps: RunDeps, input: RunInput, tally: RunTally, pending?: Extract<ChatMessage, { role: "assistant" }>) {
  const message = await prepareFor(deps, input, tally, pending);
  input.signal.throwIfAborted();
  deps.emit(message);
  noteCheckpoint(deps, input, message);
}

/**
 * The fixed tail: blobs acknowledged, turn_ended, then the final checkpoint three times
 * (Cursor's staged → settled → settled; no calls are pending, so they are equal).
 */
async function finishTurn(deps: RunDeps, input: RunInput, tally: RunTally): Promise<void> {
  const final = await prepareFor(deps, input, tally);
  input.signal.throwIfAborted();
  // Emitted without an await in between, so a cancel cannot split the tail.
  deps.emit(updates.turnEnded(tally.usage));
  for (let i = 0; i < 3; i++) deps.emit(final);
  noteCheckpoint(deps, input, final);
}

/** What the client now holds, so a copy it later sends shorter is known to be cropped (docs/protocol.md#the-clients-copy). */
function noteCheckpoint(deps: RunDeps, input: RunInput, message: AgentServerMessage): void {
  if (message.message.case !== "conversationCheckpointUpdate") return;
  deps.store.noteCheckpoint(input.conversationId, message.message.value.rootPromptMessagesJson.length);
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
      search: input.search,
      blobTimeoutMs: input.contextTimeoutMs,
    });
  } finally {
    input.control.end();
  }
}

/** Queued injections enter the history (after any interrupted round's results) and are announced. */
async function deliverInjections(deps: RunDeps, input: RunInput): Promise<void> {
  const keyOf = (i: Injection) => (i.kind === "system" ? `context:${i.id}` : `${USER_MESSAGE_KEY_PREFIX}${i.messageId || i.id}`);
  // A message already in the history (the client re-sent it as a run_request) is not delivered twice.
  const injections = input.control.take().filter((i) => !deps.store.findByKey(input.conversationId, keyOf(i)));
  if (injections.length === 0) return;
  const batchId = crypto.randomUUID();
  // An injection's request context goes right before its message, when it changes what the model was told.
  const contexts = await Promise.all(
    injections.map((i) => i.context && resolveContext(deps, { source: i.context, timeoutMs: input.contextTimeoutMs })),
  );
  let mark = latestContext(deps.store.history(input.conversationId));
  const items: NewMessage[] = [];
  for (const [n, injection] of injections.entries()) {
    const context = contexts[n];
    if (context) {
      input.requestContext = mergeContexts([input.requestContext, context]);
      const entry = await contextEntry(mark, input.requestContext, new Date());
      mark = entry.mark;
      if (entry.item) items.push(entry.item);
    }
    const images = await userImages(deps.channel, injection.images ?? [], undefined, input.contextTimeoutMs);
    const message: ChatMessage = { role: "user", content: injection.text, ...(images.length > 0 && { images }) };
    items.push({ message, messageKey: keyOf(injection), mode: input.state.mode });
  }
  input.signal.throwIfAborted();
  deps.store.appendMessages(input.conversationId, input.runId, items);
  if (input.requestContext && contexts.some(Boolean)) await keepContext(deps.store, input.conversationId, input.requestContext);
  const deliveredAtMs = BigInt(Date.now());
  for (const injection of injections) {
    deps.emit(updates.injectionDelivered(injection.id, batchId, deliveredAtMs));
    if (injection.kind === "system") continue;
    deps.emit(updates.userMessageAppended(injection.text, injection.messageId));
  }
}

/** Prepares the history for the run's action; returns the run's request context, if the action carries one. */
async function prepareHistory(deps: RunDeps, input: RunInput): Promise<RequestContext | undefined> {
  const { store } = deps;
  if (input.clientState) {
    await followClientCopy(deps, {
      conversationId: input.conversationId,
      runId: input.runId,
      copy: input.clientState,
      timeoutMs: input.contextTimeoutMs,
    });
  }
  const items: NewMessage[] = [];
  if (store.history(input.conversationId).length === 0) {
    items.push({ message: { role: "system", content: SYSTEM_PROMPT }, messageKey: "system" });
  }
  if (input.action.kind === "user_message" && input.action.textBlobId) {
    const { textBlobId } = input.action;
    const bytes = await readClientBlob(
      deps.channel,
      textBlobId,
      input.clientState?.prefetched,
      input.contextTimeoutMs,
      "the message's text",
    );
    const text = new TextDecoder().decode(bytes);
    if (new TextEncoder().encode(JSON.stringify(text)).byteLength > USER_TEXT_MAX_BYTES) {
      throw new AppError("invalid_argument", `the message is larger than ${USER_TEXT_MAX_BYTES / 1_000_000} MB`);
    }
    input.action = { ...input.action, text };
  }
  // A summary needs no context: it reads only the history.
  const context =
    input.action.kind !== "summarize" && input.context
      ? await resolveContext(deps, { ...input.context, timeoutMs: input.contextTimeoutMs })
      : undefined;
  // Read before the history changes, so a bad image leaves it as it was.
  const images =
    input.action.kind === "user_message"
      ? await userImages(deps.channel, input.action.images ?? [], input.clientState?.prefetched, input.contextTimeoutMs)
      : [];
  if (input.action.kind === "user_message") {
    const key = `${USER_MESSAGE_KEY_PREFIX}${input.action.messageId || input.runId}`;
    const existing = store.findByKey(input.conversationId, key);
    const sameText = existing?.message.role === "user" && existing.message.content === input.action.text;
    // The same message again, nothing answered since (a retry after a failure): keep it once.
    const unanswered = existing !== undefined && store.history(input.conversationId).at(-1)?.seq === existing.seq;
    const resend = !(sameText && unanswered);
    // An earlier message re-sent (edited, or re-run from there): branch before it.
    if (resend && existing) store.branchBefore(input.conversationId, existing.seq, input.runId);
    // The context, when new or changed, goes before the message it came with.
    items.push(...(await contextItems(store, input.conversationId, context)));
    if (resend) {
      const message: ChatMessage = { role: "user", content: input.action.text, ...(images.length > 0 && { images }) };
      items.push({ message, messageKey: key, mode: input.state.mode });
    }
  }
  // A resume with calls pending adds its context after their results (converse).
  if (input.action.kind === "resume" && !pendingCalls(store, input.conversationId)) {
    items.push(...(await contextItems(store, input.conversationId, context)));
  }
  if (input.action.kind === "resume" && isAnswer(store.history(input.conversationId).at(-1)?.message)) {
    // Stored once, so later calls of this run (and later turns) see the same prefix.
    items.push({ message: { role: "user", content: RESUME_NUDGE }, messageKey: `resume:${input.runId}` });
  }
  store.appendMessages(input.conversationId, input.runId, items);
  return context;
}

/** The request-context message to append, when `context` differs from the latest one in the history. */
async function contextItems(store: ConversationStore, conversationId: string, context: RequestContext | undefined): Promise<NewMessage[]> {
  const { item } = await contextEntry(latestContext(store.history(conversationId)), context, new Date());
  return item ? [item] : [];
}

const RESUME_NUDGE = "Continue from where you left off.";

/** The summary that replaced earlier history, for the checkpoint's summary fields. */
function summaryOf(store: ConversationStore, conversationId: string) {
  const key = store.liveSummaryKey(conversationId);
  const message = key && store.findByKey(conversationId, key);
  if (!key || !message) return {};
  return {
    summary: {
      text: summaryText(message.message),
      key,
      // The key names what moved the messages out: the compaction (or, before several per run, its run).
      summarized: store.supersededBy(key.slice(SUMMARY_KEY_PREFIX.length)),
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
