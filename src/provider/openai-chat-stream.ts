// Turns Chat Completions stream chunks into ModelEvents: thinking, text and
// tool calls by index, one usage, then done. Fed one SSE event at a time.
import { responseModelOf } from "./response-model.ts";
import { z } from "zod";
import { classifyStreamError, ProviderError } from "./failure.ts";
import { DONE_MARKER, parseEventJson, type SseEvent } from "./sse.ts";
import type { StreamMapper } from "./stream-loop.ts";
import type { FinishReason, ModelEvent, Usage } from "./types.ts";

// Every field falls back instead of failing: one odd field from a compatible
// provider must not kill a stream whose text is fine.
const text = z.string().nullish().catch(undefined);
const count = z.number().nullish().catch(undefined);

const ToolCallDeltaSchema = z.object({
  index: z.number().int().nonnegative().nullish().catch(undefined),
  id: text,
  function: z.object({ name: text, arguments: text }).nullish().catch(undefined),
});

const UsageSchema = z.object({
  prompt_tokens: count,
  completion_tokens: count,
  prompt_tokens_details: z.object({ cached_tokens: count }).nullish().catch(undefined),
  prompt_cache_hit_tokens: count,
  completion_tokens_details: z.object({ reasoning_tokens: count }).nullish().catch(undefined),
});

const ChoiceSchema = z.object({
  index: count,
  delta: z
    .object({
      content: text,
      /** OpenAI's refusal text, sent instead of content. */
      refusal: text,
      reasoning_content: text,
      reasoning: text,
      tool_calls: z.array(ToolCallDeltaSchema).nullish().catch(undefined),
    })
    .nullish()
    .catch(undefined),
  finish_reason: text,
  // Moonshot reports usage on the final choice instead of the chunk.
  usage: UsageSchema.nullish().catch(undefined),
});

const ChunkSchema = z.object({
  id: text,
  model: text,
  error: z.unknown().optional(),
  choices: z.array(ChoiceSchema).nullish().catch(undefined),
  usage: UsageSchema.nullish().catch(undefined),
});

type ChatUsage = z.infer<typeof UsageSchema>;
type ToolCallDelta = z.infer<typeof ToolCallDeltaSchema>;

interface ToolCallState {
  id?: string;
  name: string;
  started: boolean;
  /** Argument text that arrived before the name did. */
  pendingArguments: string;
}

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: "stop",
  content_filter: "refusal",
  tool_calls: "tool_use",
  function_call: "tool_use",
  length: "length",
};

export class ChatStreamParser implements StreamMapper {
  /** The answer carried refusal text: it ends as a refusal whatever its finish_reason says. */
  #refused = false;
  readonly #secrets: string[];
  #started = false;
  #thinkingOpen = false;
  readonly #tools = new Map<number, ToolCallState>();
  #toolsClosed = false;
  #lastToolIndex = 0;
  #finish: FinishReason | undefined;
  #usage: Usage | undefined;
  #usageAfterFinish = false;
  #complete = false;

  constructor(secrets: string[]) {
    this.#secrets = secrets;
  }

  /** A finish_reason arrived: the answer itself is whole, only usage may still follow. */
  get finished(): boolean {
    return this.#finish !== undefined;
  }

  /** `done` was emitted; nothing more will be. */
  get complete(): boolean {
    return this.#complete;
  }

  /** Events for one SSE event: a chunk, or `[DONE]`, which ends the call. Throws ProviderError for error chunks. */
  push(event: SseEvent): ModelEvent[] {
    if (event.data === DONE_MARKER) return this.#end(true);
    return this.#chunk(parseEventJson(event.data));
  }

  /** The stream closed without `[DONE]`. */
  end(): ModelEvent[] {
    return this.#end(false);
  }

  #chunk(raw: unknown): ModelEvent[] {
    const parsed = ChunkSchema.safeParse(raw);
    if (!parsed.success) throw new ProviderError("transient", "provider sent a malformed stream chunk");
    const chunk = parsed.data;
    if (chunk.error !== undefined && chunk.error !== null) throw classifyStreamError(chunk.error, this.#secrets);
    const events: ModelEvent[] = [];
    // Started by the first chunk that says something: Azure's first one carries only the prompt's
    // filter results, with no id or model.
    if (!this.#started && (chunk.choices?.length || chunk.usage)) {
      this.#started = true;
      events.push({ kind: "start", modelCallId: chunk.id || crypto.randomUUID(), ...responseModelOf(chunk.model) });
    }
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue; // we never ask for n > 1
      const delta = choice.delta;
      const thinking = delta?.reasoning_content || delta?.reasoning;
      if (thinking) {
        this.#thinkingOpen = true;
        events.push({ kind: "thinking_delta", text: thinking });
      }
      if (delta?.content) {
        this.#closeThinking(events);
        events.push({ kind: "text_delta", text: delta.content });
      }
      if (delta?.refusal) {
        this.#closeThinking(events);
        this.#refused = true;
        events.push({ kind: "text_delta", text: delta.refusal });
      }
      for (const [position, call] of (delta?.tool_calls ?? []).entries()) {
        this.#closeThinking(events);
        this.#toolCallDelta(this.#toolIndex(call, position), call, events);
      }
      if (choice.finish_reason && this.#finish === undefined) {
        this.#finish = this.#refused ? "refusal" : (FINISH_REASONS[choice.finish_reason] ?? "stop");
        this.#closeThinking(events);
        this.#closeTools(events);
      }
      if (choice.usage) this.#recordUsage(choice.usage);
    }
    if (chunk.usage) this.#recordUsage(chunk.usage);
    // Usage at or after the finish is the last thing the provider has to say.
    if (this.#usageAfterFinish) events.push(...this.#completeEvents());
    return events;
  }

  /**
   * The stream ended (`sawDoneMarker` for `[DONE]`). Completes the call, or throws when
   * the provider stopped before saying the answer was complete.
   */
  #end(sawDoneMarker: boolean): ModelEvent[] {
    if (this.#complete) return [];
    // [DONE] without finish_reason is accepted (some gateways omit it); silence is not.
    if (!this.#started || (!this.finished && !sawDoneMarker)) {
      throw new ProviderError("transient", "provider stream ended before the response was complete");
    }
    return this.#completeEvents();
  }

  #completeEvents(): ModelEvent[] {
    const events: ModelEvent[] = [];
    this.#closeThinking(events);
    this.#closeTools(events);
    if (this.#usage) events.push({ kind: "usage", usage: this.#usage });
    // A refusal outranks the tool calls of the same answer (docs/providers.md#refusals).
    const refused = this.#refused || this.#finish === "refusal";
    // So does a cut at the output limit: those calls are incomplete (docs/protocol.md#truncated-answers).
    const cut = this.#finish === "length";
    const finish = refused ? "refusal" : cut ? "length" : this.#tools.size > 0 ? "tool_use" : (this.#finish ?? "stop");
    events.push({ kind: "done", finish });
    this.#complete = true;
    return events;
  }

  #closeThinking(events: ModelEvent[]): void {
    if (!this.#thinkingOpen) return;
    this.#thinkingOpen = false;
    events.push({ kind: "thinking_end" });
  }

  /** Missing indexes (some compatible APIs) fall back to the call id, then the last call. */
  #toolIndex(call: ToolCallDelta, position: number): number {
    if (call.index !== undefined && call.index !== null) return call.index;
    if (call.id) {
      for (const [index, state] of this.#tools) if (state.id === call.id) return index;
      return this.#tools.size === 0 ? position : Math.max(...this.#tools.keys()) + 1;
    }
    return this.#tools.size === 0 ? position : this.#lastToolIndex;
  }

  #toolCallDelta(index: number, call: ToolCallDelta, events: ModelEvent[]): void {
    if (this.#toolsClosed) return;
    this.#lastToolIndex = index;
    let state = this.#tools.get(index);
    if (!state) {
      state = { name: "", started: false, pendingArguments: "" };
      this.#tools.set(index, state);
    }
    const args = call.function?.arguments ?? "";
    if (state.started) {
      if (args) events.push({ kind: "tool_call_delta", index, delta: args });
      return;
    }
    state.id ??= call.id || undefined;
    state.name ||= call.function?.name ?? "";
    state.pendingArguments += args;
    if (state.name) this.#startTool(index, state, events);
  }

  #startTool(index: number, state: ToolCallState, events: ModelEvent[]): void {
    state.started = true;
    events.push({ kind: "tool_call_start", index, callId: state.id ?? `call_${crypto.randomUUID()}`, name: state.name });
    if (state.pendingArguments) events.push({ kind: "tool_call_delta", index, delta: state.pendingArguments });
    state.pendingArguments = "";
  }

  #closeTools(events: ModelEvent[]): void {
    if (this.#toolsClosed) return;
    this.#toolsClosed = true;
    for (const index of [...this.#tools.keys()].sort((a, b) => a - b)) {
      const state = this.#tools.get(index);
      // A call that never got its name still ends, so the run can report it as invalid.
      if (state && !state.started) this.#startTool(index, state, events);
      events.push({ kind: "tool_call_end", index });
    }
  }

  #recordUsage(usage: ChatUsage): void {
    this.#usage = toUsage(usage);
    if (this.#finish !== undefined) this.#usageAfterFinish = true;
  }
}

function toUsage(usage: ChatUsage): Usage {
  return {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
    cacheReadTokens: usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}
