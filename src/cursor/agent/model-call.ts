// One provider call of a run: records an llm_calls row, forwards text and
// thinking to Cursor as the provider's chunks arrive, and collects the
// assistant message and usage.
import type { AgentServerMessage, ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { updates } from "../../proto/frames.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import {
  emptyUsage,
  type CallTimings,
  type ChatMessage,
  type FinishReason,
  type ModelConfig,
  type ModelEvent,
  type Provider,
  type ProviderReplay,
  type ToolCallPart,
  type ToolDefinition,
  type Usage,
} from "../../provider/types.ts";
import { isContextOverflow, ProviderError, withoutPromptQuotes } from "../../provider/failure.ts";
import { withVisionHint } from "../../provider/images.ts";
import { isRetryable, planRetry, RETRY_BUDGET_MS, sleepUnlessAborted } from "../../provider/retry.ts";
import { type KeyRouting, keyIdOf, keyOutcomeOf, withKey } from "../../provider/model-keys.ts";
import { SpanKind, type SpanScope } from "../../telemetry/run-trace.ts";
import { answeredAttributes, chatAttributes, chatSpanName, errorTypeOf, usageAttributes } from "./run-spans.ts";
import { ANSWER_MAX_BYTES, utf8Length } from "./message-limits.ts";

export interface ModelCallInput {
  /** False for internal calls (summaries): nothing is streamed to the client. */
  forward?: boolean;
  /** The typed empty card of a tool, for the first partial_tool_call; undefined for unknown tools. */
  cardFor?: (toolName: string) => ToolCall | undefined;
  runId: string;
  conversationId: string;
  model: ModelConfig;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  signal: AbortSignal;
  /**
   * The provider failed after some of the answer's text reached the client (so the call is not
   * retried): the text the client shows, for the history to keep (docs/providers.md#what-every-provider-gets).
   */
  onCutOff?: (text: string) => void;
}

export interface ModelCallResult {
  modelCallId: string;
  assistant: Extract<ChatMessage, { role: "assistant" }>;
  usage: Usage;
  finish: FinishReason;
}

export interface ModelCallDeps {
  store: ConversationStore;
  /** The provider of the run's model. */
  provider: Provider;
  /** The provider of another model, for its fallbacks (with the same limits and budget); absent: no fallbacks run. */
  providerFor?: (model: ModelConfig) => Provider;
  /** The team's key pools, for models with several keys; absent: each model's own key only. */
  keys?: KeyRouting;
  /** Where each attempt's chat span goes, when the run is traced (docs/telemetry.md#traces). */
  trace?: SpanScope;
  emit: (message: AgentServerMessage) => void;
}

/** Retries after the first failed attempt on one model (so at most 4 attempts per model, fallbacks each their own). */
const MAX_PROVIDER_RETRIES = 3;

/** A Retry-After this short is waited out on the same model even when a fallback is there. */
const SHORT_RETRY_AFTER_MS = 2_000;

/**
 * One provider call, retried on rate limits and transient failures with
 * bounded, jittered backoff, but only while nothing of the failed attempt has
 * reached the client: a retry then starts from the same committed history and
 * cannot duplicate output. Every attempt is its own llm_calls row. The waits
 * together stay within the model's retry budget: a Retry-After beyond what is
 * left ends the call at once, saying so (the client sees heartbeats while it waits).
 * A model with fallbacks moves on to the next one instead, while nothing has streamed
 * (docs/providers.md#fallbacks); each attempt's row names the model it used.
 */
export async function callModel(deps: ModelCallDeps, input: ModelCallInput): Promise<ModelCallResult> {
  const index = deps.store.nextProviderCallIndex(input.runId);
  const targets = [input.model, ...(deps.providerFor ? (input.model.fallbacks ?? []) : [])];
  const attempts = { next: 0, streamed: false };
  /** The largest window the input overflowed so far: later targets must be larger. */
  let overflowed = 0;
  for (let t = 0; ; t++) {
    const model = targets[t]!;
    const provider = t === 0 ? deps.provider : deps.providerFor!(model);
    try {
      return await callTarget({ ...deps, provider }, { ...input, model }, index, attempts, t < targets.length - 1);
    } catch (err) {
      if (attempts.streamed || input.signal.aborted || !(err instanceof ProviderError)) throw err;
      if (isContextOverflow(err)) overflowed = Math.max(overflowed, model.contextWindow);
      else if (!isRetryable(err)) throw err;
      // Only a model with room for what did not fit (docs/providers.md#fallbacks).
      const next = targets.findIndex((m, i) => i > t && m.contextWindow > overflowed);
      if (next < 0) throw err;
      t = next - 1;
    }
  }
}

/**
 * The attempts of one target, retried as above; with a fallback after it, a failure retrying would not soon fix moves on at once.
 * A model with several keys gets one per attempt from its pool; a 429 or a refused key moves to another of its keys
 * at once, without counting as a retry (docs/providers.md#keys-behind-one-model).
 */
async function callTarget(
  deps: ModelCallDeps,
  input: ModelCallInput,
  index: number,
  attempts: { next: number; streamed: boolean },
  fallbackAfter: boolean,
): Promise<ModelCallResult> {
  let budgetLeftMs = input.model.retryBudgetMs ?? RETRY_BUDGET_MS;
  let keySwitches = 0;
  for (let retry = 0; ; ) {
    const emitted: Emitted = { any: false, text: "" };
    /** The model as this attempt called it (with its key); undefined while no call was made. */
    let called: ModelConfig | undefined;
    try {
      called = await keyedModel(deps.keys, input.model);
      const result = await attemptCall(deps, { ...input, model: called }, index, attempts.next++, emitted);
      if (called.keyOnProbation) void deps.keys?.report(called, { kind: "answered" });
      return result;
    } catch (caught) {
      const err =
        caught instanceof ProviderError && !isContextOverflow(caught)
          ? withVisionHint(withoutPromptQuotes(caught, promptTexts(input.messages)), input.model, input.messages)
          : caught;
      const outcome = called ? keyOutcomeOf(err) : undefined;
      const reported = called && outcome ? deps.keys?.report(called, outcome) : undefined;
      if (emitted.any) attempts.streamed = true;
      if (emitted.text !== "" && err instanceof ProviderError && !input.signal.aborted) input.onCutOff?.(emitted.text);
      if (input.signal.aborted || emitted.any) throw err;
      // Another of the model's keys may answer at once.
      if (outcome && called?.keyId !== undefined && keySwitches < (input.model.keys?.keys.length ?? 0) - 1) {
        keySwitches++;
        await reported;
        continue;
      }
      if (retry >= MAX_PROVIDER_RETRIES || !isRetryable(err)) throw err;
      if (fallbackAfter && !soonRetried(err)) throw err;
      const plan = planRetry(++retry, err, budgetLeftMs);
      if ("failure" in plan) throw plan.failure;
      budgetLeftMs -= plan.waitMs;
      await sleepUnlessAborted(plan.waitMs, input.signal);
      // After a wait, every key may be tried again.
      keySwitches = 0;
    }
  }
}

/**
 * The model bound to the key its pool gives this attempt; the model itself when it has one key.
 * When none may be used now, the failure says why: all cooling down (a rate limit, with the
 * time the first is free again, so the waits and fallbacks above apply) or all refused.
 */
async function keyedModel(routing: KeyRouting | undefined, model: ModelConfig): Promise<ModelConfig> {
  const keys = model.keys;
  if (!keys || !routing) return model;
  const pick = await routing.pick({ ...model, keys });
  if (pick.kind === "key") return withKey(model, keys.keys.find((k) => k.id === pick.id) ?? keys.keys[0]!, pick.probation === true);
  if (pick.kind === "broken") {
    throw new ProviderError(
      "authorization",
      `every key of model ${model.name} was refused by its provider; rotate them (the dashboard's Credentials page marks them broken)`,
    );
  }
  const retryAfterMs = Math.max(0, pick.retryAfterMs);
  throw new ProviderError(
    "rate_limit",
    `every key of model ${model.name} is cooling down after a 429 (for ${Math.ceil(retryAfterMs / 1000)} s more)`,
    {
      status: 429,
      retryAfterMs,
    },
  );
}

/** A rate limit that asks for a short wait: the same model is likely to answer after it. */
function soonRetried(err: ProviderError): boolean {
  return err.kind === "rate_limit" && err.retryAfterMs !== undefined && err.retryAfterMs <= SHORT_RETRY_AFTER_MS;
}

/** What of an attempt reached the client: anything, and the answer's text. */
interface Emitted {
  any: boolean;
  text: string;
}

async function attemptCall(
  deps: ModelCallDeps,
  input: ModelCallInput,
  index: number,
  attempt: number,
  emitted: Emitted,
): Promise<ModelCallResult> {
  const { store } = deps;
  const callId = attempt === 0 ? `${input.runId}:${index}` : `${input.runId}:${index}:retry-${attempt}`;
  store.startLlmCall({
    callId,
    runId: input.runId,
    conversationId: input.conversationId,
    providerCallIndex: index,
    attempt,
    providerType: input.model.provider,
    providerUrl: input.model.baseUrl,
    credentialId: keyIdOf(input.model),
    modelId: input.model.model,
    displayName: input.model.name,
    messageCount: input.messages.length,
    toolCount: input.tools.length,
  });

  const span = deps.trace?.child(chatSpanName(input.model), chatAttributes(input.model, input.conversationId, attempt), {
    kind: SpanKind.CLIENT,
  });
  const started = Date.now();
  const timings: CallTimings = {};
  const forward = input.forward !== false;
  const emit = (message: AgentServerMessage) => {
    if (!forward) return;
    emitted.any = true;
    deps.emit(message);
  };
  const stream = new StreamCollector(emit, started, input.cardFor ?? (() => undefined), callId);
  try {
    for await (const event of deps.provider.stream(
      { model: input.model, messages: input.messages, tools: input.tools, signal: input.signal, cacheKey: input.conversationId },
      timings,
    )) {
      stream.accept(event);
    }
    // What the call counts: the provider's usage, else the estimate of an answer it reported none for.
    const collected = stream.result();
    const result = { ...collected, usage: timings.counted?.usage ?? collected.usage };
    if (forward) deps.emit(updates.tokenDelta(result.usage.outputTokens));
    store.finishLlmCall(callId, {
      status: "completed",
      finishReason: result.finish,
      ...counted(timings),
      ...stream.timings(timings),
    });
    span?.set({ ...usageAttributes(result.usage), ...answeredAttributes(input.model, result.finish, stream.responseModel) });
    span?.end();
    return result;
  } catch (err) {
    if (forward) emitted.text = stream.text;
    // A call the provider accepted counts however it ended (docs/hosting.md#limits).
    store.finishLlmCall(callId, {
      status: input.signal.aborted ? "cancelled" : "failed",
      error: err instanceof ProviderError ? err.message : input.signal.aborted ? "cancelled" : "internal error",
      ...counted(timings),
      ...stream.timings(timings),
    });
    if (timings.counted) span?.set(usageAttributes(timings.counted.usage));
    span?.fail(errorTypeOf(err, input.signal.aborted));
    span?.end();
    throw err;
  }
}

/** The call's counted tokens for its llm_calls row; none for a call the provider refused. */
function counted(timings: CallTimings) {
  return timings.counted ? { usage: timings.counted.usage, usageEstimated: timings.counted.estimated } : {};
}

/** The text the user and model wrote (not ids), for spotting a provider error that quotes it. */
function promptTexts(messages: ChatMessage[]): string[] {
  return messages.flatMap((m) => [m.content, ...(m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.arguments) : [])]);
}

/** Folds provider events into Cursor updates and the final assistant message. */
class StreamCollector {
  #text = "";
  #reasoning: string | undefined;
  #replay: ProviderReplay | undefined;
  #thinkingSince: number | undefined;
  #usage = emptyUsage();
  #finish: FinishReason | undefined;
  #ttftMs: number | undefined;
  #ttfrMs: number | undefined;
  readonly #toolCalls = new Map<number, ToolCallPart>();
  /** UTF-8 bytes of the answer so far, against ANSWER_MAX_BYTES. */
  #answerBytes = 0;

  #modelCallId: string;
  /** The model the provider said answered (docs/telemetry.md#traces), when it said. */
  responseModel: string | undefined;

  constructor(
    readonly emit: (message: AgentServerMessage) => void,
    readonly started: number,
    readonly cardFor: (toolName: string) => ToolCall | undefined,
    fallbackModelCallId: string,
  ) {
    this.#modelCallId = fallbackModelCallId;
  }

  accept(event: ModelEvent): void {
    const grows =
      event.kind === "text_delta" || event.kind === "thinking_delta" ? event.text : event.kind === "tool_call_delta" ? event.delta : "";
    if (grows !== "") this.#count(grows);
    switch (event.kind) {
      case "start":
        if (event.modelCallId) this.#modelCallId = event.modelCallId;
        if (event.responseModel) this.responseModel = event.responseModel;
        return;
      case "thinking_delta":
        this.#ttfrMs ??= Date.now() - this.started;
        this.#thinkingSince ??= Date.now();
        this.#reasoning = (this.#reasoning ?? "") + event.text;
        this.emit(updates.thinkingDelta(event.text));
        return;
      case "thinking_end":
        this.#closeThinking();
        return;
      case "text_delta":
        this.#closeThinking();
        this.#ttftMs ??= Date.now() - this.started;
        this.#text += event.text;
        this.emit(updates.textDelta(event.text));
        return;
      case "tool_call_start": {
        this.#closeThinking();
        this.#toolCalls.set(event.index, { id: event.callId, name: event.name, arguments: "", ...(event.custom && { custom: true }) });
        // The client shows an empty typed card at once, then the arguments as they stream.
        const card = this.cardFor(event.name);
        this.emit(updates.partialToolCall(event.callId, this.#modelCallId, "", card));
        return;
      }
      case "tool_call_delta": {
        const call = this.#toolCalls.get(event.index);
        if (!call) return;
        call.arguments += event.delta;
        this.emit(updates.partialToolCall(call.id, this.#modelCallId, event.delta));
        return;
      }
      case "tool_call_end":
        return;
      case "usage":
        this.#usage = event.usage;
        return;
      case "replay":
        this.#replay = event.value;
        return;
      case "done":
        this.#closeThinking();
        this.#finish = event.finish;
        return;
    }
  }

  /** Stops an answer past ANSWER_MAX_BYTES before the delta that passes it is kept or sent. */
  #count(delta: string): void {
    this.#answerBytes += utf8Length(delta);
    if (this.#answerBytes > ANSWER_MAX_BYTES) {
      throw new ProviderError(
        "request",
        `the model's answer passed ${ANSWER_MAX_BYTES / 1024 / 1024} MiB, the most one answer may hold; it was stopped there and what it wrote so far is kept`,
      );
    }
  }

  /** The answer's text so far. */
  get text(): string {
    return this.#text;
  }

  result(): ModelCallResult {
    if (!this.#finish) {
      throw new ProviderError("transient", "provider stream ended before the response was complete");
    }
    const toolCalls = [...this.#toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    return {
      modelCallId: this.#modelCallId,
      assistant: {
        role: "assistant",
        content: this.#text,
        ...(this.#reasoning !== undefined && { reasoning: this.#reasoning }),
        ...(toolCalls.length > 0 && { toolCalls }),
        ...(this.#replay !== undefined && { replay: this.#replay }),
      },
      usage: this.#usage,
      finish: this.#finish,
    };
  }

  timings(call: CallTimings) {
    return {
      ...(call.httpStatus !== undefined && { httpStatus: call.httpStatus }),
      ...(call.ttfbMs !== undefined && { ttfbMs: call.ttfbMs }),
      ...(this.#ttftMs !== undefined && { ttftMs: this.#ttftMs }),
      ...(this.#ttfrMs !== undefined && { ttfrMs: this.#ttfrMs }),
    };
  }

  #closeThinking(): void {
    if (this.#thinkingSince === undefined) return;
    this.emit(updates.thinkingCompleted(Date.now() - this.#thinkingSince));
    this.#thinkingSince = undefined;
  }
}
