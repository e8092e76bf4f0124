// Turns Anthropic Messages stream events into ModelEvents: thinking (with its
// signatures kept for replay), text and tool calls per content block, one usage,
// then done. Fed one SSE event at a time.
import { responseModelOf } from "./response-model.ts";
import { z } from "zod";
import { classifyStreamError, ProviderError } from "./failure.ts";
import { parseEventJson, type SseEvent } from "./sse.ts";
import type { StreamMapper } from "./stream-loop.ts";
import type { FinishReason, ModelEvent, Usage } from "./types.ts";

// Every field falls back instead of failing: one odd field (a gateway, a new API
// version) must not kill a stream whose text is fine.
const text = z.string().nullish().catch(undefined);
const count = z.number().nullish().catch(undefined);

const UsageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
});

const EventSchema = z.object({
  type: text,
  index: z.number().int().nonnegative().nullish().catch(undefined),
  message: z
    .object({ id: text, model: text, usage: UsageSchema.nullish().catch(undefined) })
    .nullish()
    .catch(undefined),
  content_block: z.record(z.string(), z.unknown()).nullish().catch(undefined),
  delta: z
    .object({
      type: text,
      text,
      thinking: text,
      signature: text,
      partial_json: text,
      stop_reason: text,
    })
    .nullish()
    .catch(undefined),
  usage: UsageSchema.nullish().catch(undefined),
  error: z.unknown().optional(),
});

type AnthropicEvent = z.infer<typeof EventSchema>;
type AnthropicUsage = z.infer<typeof UsageSchema>;

/** A thinking or redacted_thinking block as received; replayed unchanged on the next request. */
export type AnthropicThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

type BlockState =
  | { kind: "text" }
  | { kind: "thinking"; thinking: string; signature: string; shown: boolean }
  | { kind: "tool_use"; toolIndex: number; startInput: unknown; sawInput: boolean };

const STOP_REASONS: Record<string, FinishReason> = {
  tool_use: "tool_use",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "refusal",
};

export class AnthropicStreamParser implements StreamMapper {
  readonly #secrets: string[];
  #started = false;
  /** Open content blocks by the stream's block index (not assumed contiguous). */
  readonly #blocks = new Map<number, BlockState>();
  #toolCount = 0;
  /** Thinking blocks to replay, by block index so they keep the message's order. */
  readonly #replay = new Map<number, AnthropicThinkingBlock>();
  #usage: Record<keyof AnthropicUsage, number | undefined> = {
    input_tokens: undefined,
    output_tokens: undefined,
    cache_read_input_tokens: undefined,
    cache_creation_input_tokens: undefined,
  };
  #stopReason: string | undefined;
  #complete = false;

  constructor(secrets: string[]) {
    this.#secrets = secrets;
  }

  /** message_delta carried a stop_reason: the answer is whole, only message_stop may still follow. */
  get finished(): boolean {
    return this.#stopReason !== undefined;
  }

  /** `done` was emitted; nothing more will be. */
  get complete(): boolean {
    return this.#complete;
  }

  /** Events for one SSE event. Throws ProviderError for `error` events. */
  push(event: SseEvent): ModelEvent[] {
    return this.#event(event.event, parseEventJson(event.data));
  }

  /** `eventName` is from the event's `event:` line, `raw` its parsed data. */
  #event(eventName: string | undefined, raw: unknown): ModelEvent[] {
    const parsed = EventSchema.safeParse(raw);
    if (!parsed.success) throw new ProviderError("transient", "provider sent a malformed stream event");
    const event = parsed.data;
    const type = event.type || eventName;
    if (type === "error") throw classifyStreamError(event.error, this.#secrets);
    if (this.#complete) return [];

    const events: ModelEvent[] = [];
    if (!this.#started && type !== "ping") {
      this.#started = true;
      events.push({ kind: "start", modelCallId: event.message?.id || crypto.randomUUID(), ...responseModelOf(event.message?.model) });
    }
    switch (type) {
      case "message_start":
        this.#recordUsage(event.message?.usage);
        break;
      case "content_block_start":
        if (event.index !== undefined && event.index !== null) this.#startBlock(event.index, event.content_block ?? {}, events);
        break;
      case "content_block_delta":
        if (event.index !== undefined && event.index !== null) this.#delta(event.index, event, events);
        break;
      case "content_block_stop":
        if (event.index !== undefined && event.index !== null) this.#stopBlock(event.index, events);
        break;
      case "message_delta":
        // A refusal stands: a later stop reason in the same answer does not erase it.
        if (this.#stopReason !== "refusal") this.#stopReason = event.delta?.stop_reason || this.#stopReason;
        this.#recordUsage(event.usage);
        break;
      case "message_stop":
        events.push(...this.#completeEvents());
        break;
      default:
        break; // ping, and event types this version does not know
    }
    return events;
  }

  /**
   * The stream ended. Completes the call when message_delta already said why it stopped
   * (message_stop carries nothing more); otherwise the answer may be cut short and this throws.
   */
  end(): ModelEvent[] {
    if (this.#complete) return [];
    if (!this.#started || !this.finished) {
      throw new ProviderError("transient", "provider stream ended before the response was complete");
    }
    return this.#completeEvents();
  }

  #startBlock(index: number, block: Record<string, unknown>, events: ModelEvent[]): void {
    this.#stopBlock(index, events); // a repeated index closes the block it replaces
    switch (block.type) {
      case "text": {
        this.#blocks.set(index, { kind: "text" });
        if (typeof block.text === "string" && block.text) events.push({ kind: "text_delta", text: block.text });
        return;
      }
      case "thinking": {
        const state = { kind: "thinking" as const, thinking: "", signature: "", shown: false };
        this.#blocks.set(index, state);
        if (typeof block.signature === "string") state.signature = block.signature;
        if (typeof block.thinking === "string") this.#thinking(state, block.thinking, events);
        return;
      }
      case "redacted_thinking":
        // Encrypted: nothing to show, but it must go back with the next request.
        if (typeof block.data === "string") this.#replay.set(index, { type: "redacted_thinking", data: block.data });
        return;
      case "tool_use": {
        const toolIndex = this.#toolCount++;
        this.#blocks.set(index, { kind: "tool_use", toolIndex, startInput: block.input, sawInput: false });
        const callId = typeof block.id === "string" && block.id ? block.id : `toolu_${crypto.randomUUID()}`;
        events.push({ kind: "tool_call_start", index: toolIndex, callId, name: typeof block.name === "string" ? block.name : "" });
        return;
      }
      default:
        return; // server tool blocks and future block types carry nothing we forward
    }
  }

  #delta(index: number, event: AnthropicEvent, events: ModelEvent[]): void {
    const delta = event.delta;
    if (!delta) return;
    let state = this.#blocks.get(index);
    if (!state) {
      // A delta for a block whose start we never saw: text and thinking can still be shown.
      if (delta.type === "text_delta") state = { kind: "text" };
      else if (delta.type === "thinking_delta" || delta.type === "signature_delta") {
        state = { kind: "thinking", thinking: "", signature: "", shown: false };
      } else return;
      this.#blocks.set(index, state);
    }
    switch (delta.type) {
      case "text_delta":
        if (state.kind === "text" && delta.text) events.push({ kind: "text_delta", text: delta.text });
        return;
      case "thinking_delta":
        if (state.kind === "thinking" && delta.thinking) this.#thinking(state, delta.thinking, events);
        return;
      case "signature_delta":
        if (state.kind === "thinking" && delta.signature) state.signature += delta.signature;
        return;
      case "input_json_delta":
        if (state.kind === "tool_use" && delta.partial_json) {
          state.sawInput = true;
          events.push({ kind: "tool_call_delta", index: state.toolIndex, delta: delta.partial_json });
        }
        return;
      default:
        return; // citations and future delta types
    }
  }

  #thinking(state: Extract<BlockState, { kind: "thinking" }>, text: string, events: ModelEvent[]): void {
    if (!text) return;
    state.thinking += text;
    state.shown = true;
    events.push({ kind: "thinking_delta", text });
  }

  #stopBlock(index: number, events: ModelEvent[]): void {
    const state = this.#blocks.get(index);
    if (!state) return;
    this.#blocks.delete(index);
    switch (state.kind) {
      case "text":
        return;
      case "thinking":
        if (state.shown) events.push({ kind: "thinking_end" });
        // Unsigned thinking cannot be sent back (the API would reject it).
        if (state.signature) {
          this.#replay.set(index, { type: "thinking", thinking: state.thinking, signature: state.signature });
        }
        return;
      case "tool_use": {
        // Some gateways put the whole input on the start event and send no input_json_delta.
        if (!state.sawInput && isNonEmptyObject(state.startInput)) {
          events.push({ kind: "tool_call_delta", index: state.toolIndex, delta: JSON.stringify(state.startInput) });
        }
        events.push({ kind: "tool_call_end", index: state.toolIndex });
        return;
      }
    }
  }

  #completeEvents(): ModelEvent[] {
    const events: ModelEvent[] = [];
    for (const index of [...this.#blocks.keys()].sort((a, b) => a - b)) this.#stopBlock(index, events);
    if (this.#replay.size > 0) {
      const data = [...this.#replay.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
      events.push({ kind: "replay", value: { provider: "anthropic", data } });
    }
    const usage = this.#toUsage();
    if (usage) events.push({ kind: "usage", usage });
    events.push({ kind: "done", finish: this.#finish() });
    this.#complete = true;
    return events;
  }

  #finish(): FinishReason {
    const mapped = this.#stopReason === undefined ? undefined : STOP_REASONS[this.#stopReason];
    // A cut-off tool call is still "length"; any other stop with tool calls is a tool round.
    return mapped ?? (this.#toolCount > 0 ? "tool_use" : "stop");
  }

  /** message_delta usage is cumulative: each field it reports replaces the one from message_start. */
  #recordUsage(usage: AnthropicUsage | null | undefined): void {
    if (!usage) return;
    for (const key of Object.keys(this.#usage) as (keyof AnthropicUsage)[]) {
      const value = usage[key];
      if (typeof value === "number") this.#usage[key] = value;
    }
  }

  #toUsage(): Usage | undefined {
    const u = this.#usage;
    if (Object.values(u).every((v) => v === undefined)) return undefined;
    const cacheRead = u.cache_read_input_tokens ?? 0;
    const cacheWrite = u.cache_creation_input_tokens ?? 0;
    return {
      // Anthropic's input_tokens counts only the uncached part of the prompt. The rest of
      // the system uses the OpenAI convention (input = the whole prompt, cache reads a part
      // of it; the context meter and used_tokens rely on it), so the cached parts are added back.
      inputTokens: (u.input_tokens ?? 0) + cacheRead + cacheWrite,
      outputTokens: u.output_tokens ?? 0,
      cacheReadTokens: cacheRead,
      cacheWriteTokens: cacheWrite,
      reasoningTokens: 0, // Anthropic counts thinking in output_tokens and reports no split
    };
  }
}

function isNonEmptyObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;
}
