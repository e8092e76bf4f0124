// Turns Responses API stream events into ModelEvents: thinking from reasoning
// summaries, text, function calls by output order, the encrypted reasoning items
// to replay, one usage, then done. Fed one SSE event at a time.
import { responseModelOf } from "./response-model.ts";
import { z } from "zod";
import { classifyStreamError, ProviderError } from "./failure.ts";
import { isReasoningItem, RESPONSES_PROVIDER, type ReasoningItem } from "./openai-responses-request.ts";
import { DONE_MARKER, parseEventJson, type SseEvent } from "./sse.ts";
import type { StreamMapper } from "./stream-loop.ts";
import type { FinishReason, ModelEvent, Usage } from "./types.ts";

// Every field falls back instead of failing: one odd field from a compatible
// provider must not kill a stream whose text is fine.
const text = z.string().nullish().catch(undefined);
const count = z.number().nullish().catch(undefined);
const position = z.number().int().nonnegative().nullish().catch(undefined);

const UsageSchema = z.object({
  input_tokens: count,
  output_tokens: count,
  input_tokens_details: z.object({ cached_tokens: count }).nullish().catch(undefined),
  output_tokens_details: z.object({ reasoning_tokens: count }).nullish().catch(undefined),
});

const ResponseSchema = z.object({
  id: text,
  model: text,
  error: z.unknown().optional(),
  incomplete_details: z.object({ reason: text }).nullish().catch(undefined),
  usage: UsageSchema.nullish().catch(undefined),
  output: z.array(z.unknown()).nullish().catch(undefined),
});

const ContentPartSchema = z.object({ type: text, text, refusal: text }).catch({});

const ItemSchema = z.object({
  type: text,
  id: text,
  call_id: text,
  name: text,
  arguments: text,
  /** A custom tool call's raw input. */
  input: text,
  content: z.array(ContentPartSchema).nullish().catch(undefined),
});

const EventSchema = z.object({
  type: text,
  response: ResponseSchema.nullish().catch(undefined),
  /** Kept raw: reasoning items are replayed exactly as received. */
  item: z.unknown().optional(),
  item_id: text,
  output_index: position,
  summary_index: position,
  content_index: position,
  delta: text,
  arguments: text,
  input: text,
  text,
  // `error` events carry these at the top level, or nested under `error`.
  code: z.unknown().optional(),
  message: z.unknown().optional(),
  error: z.unknown().optional(),
});

type ResponsesEvent = z.infer<typeof EventSchema>;
type ResponsesUsage = z.infer<typeof UsageSchema>;
type OutputItem = z.infer<typeof ItemSchema>;

interface ToolCallState {
  index: number;
  itemId?: string;
  outputIndex?: number;
  /** Argument text emitted so far. */
  arguments: string;
  ended: boolean;
}

interface StoredReasoning {
  order: number;
  item: ReasoningItem;
}

export class ResponsesStreamParser implements StreamMapper {
  /** A refusal part arrived: the answer ends as a refusal. */
  #refused = false;
  readonly #secrets: string[];
  #started = false;
  #thinkingOpen = false;
  #thinkingEmitted = false;
  #lastThinkingPart: string | undefined;
  readonly #tools: ToolCallState[] = [];
  /** Message items (by id and `#output_index`) whose text was already emitted. */
  readonly #textItems = new Set<string>();
  readonly #reasoning = new Map<string, StoredReasoning>();
  #reasoningCount = 0;
  #complete = false;

  constructor(secrets: string[]) {
    this.#secrets = secrets;
  }

  /** response.completed both makes the answer whole and ends it: nothing is left to lose after it. */
  get finished(): boolean {
    return this.#complete;
  }

  /** `done` was emitted; nothing more will be. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * Events for one SSE event. `[DONE]` is not part of the Responses API, but some
   * compatible gateways end with it: it ends the stream like the close does.
   * Throws ProviderError for failure events.
   */
  push(event: SseEvent): ModelEvent[] {
    if (event.data === DONE_MARKER) return this.end();
    return this.#event(parseEventJson(event.data), event.event);
  }

  /** `name` is the SSE event name, used when the payload has no `type`. */
  #event(raw: unknown, name: string | undefined): ModelEvent[] {
    const parsed = EventSchema.safeParse(raw);
    if (!parsed.success) throw new ProviderError("transient", "provider sent a malformed stream event");
    const event = parsed.data;
    const type = event.type ?? name ?? "";
    if (type === "error") throw this.#errorEventFailure(event);
    if (type === "response.failed") throw this.#failedResponseFailure(event);

    const events: ModelEvent[] = [];
    if (!this.#started) {
      this.#started = true;
      events.push({ kind: "start", modelCallId: event.response?.id || crypto.randomUUID(), ...responseModelOf(event.response?.model) });
    }
    switch (type) {
      case "response.output_item.added":
        this.#itemAdded(event, events);
        break;
      case "response.reasoning_summary_text.delta":
        this.#thinking(event, `summary:${event.summary_index ?? 0}`, events);
        break;
      case "response.reasoning_text.delta":
        this.#thinking(event, `text:${event.content_index ?? 0}`, events);
        break;
      case "response.refusal.delta":
        this.#refused = true;
        if (event.delta) this.#text(event.item_id, event.output_index, event.delta, events);
        break;
      case "response.output_text.delta":
        if (event.delta) this.#text(event.item_id, event.output_index, event.delta, events);
        break;
      case "response.output_text.done":
        // Only for gateways that send the whole text without deltas.
        if (event.text && !this.#hasText(event.item_id, event.output_index)) {
          this.#text(event.item_id, event.output_index, event.text, events);
        }
        break;
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta": {
        const call = this.#findCall(event.item_id, event.output_index);
        if (call && !call.ended && event.delta) {
          call.arguments += event.delta;
          events.push({ kind: "tool_call_delta", index: call.index, delta: event.delta });
        }
        break;
      }
      case "response.function_call_arguments.done":
      case "response.custom_tool_call_input.done": {
        const call = this.#findCall(event.item_id, event.output_index);
        if (call) this.#reconcileArguments(call, event.arguments ?? event.input, events);
        break;
      }
      case "response.output_item.done":
        this.#itemDone(event, events);
        break;
      case "response.completed":
      case "response.incomplete":
        events.push(...this.#completeEvents(event, type === "response.incomplete"));
        break;
      default:
        break; // created, in_progress, content_part.*, summary_part.*, and whatever comes next
    }
    return events;
  }

  /** The stream ended. Nothing to add when complete; otherwise the response was cut short. */
  end(): ModelEvent[] {
    if (this.#complete) return [];
    throw new ProviderError("transient", "provider stream ended before the response was complete");
  }

  #itemAdded(event: ResponsesEvent, events: ModelEvent[]): void {
    const item = parseItem(event.item);
    if (item?.type === "message") this.#closeThinking(events);
    if (item?.type === "function_call" || item?.type === "custom_tool_call") this.#startCall(item, event.output_index, events);
  }

  #itemDone(event: ResponsesEvent, events: ModelEvent[]): void {
    const item = parseItem(event.item);
    switch (item?.type) {
      case "reasoning":
        this.#closeThinking(events);
        this.#keepReasoning(event.item, event.output_index);
        return;
      case "message": {
        if ((item.content ?? []).some((part) => part.type === "refusal")) this.#refused = true;
        // Only for gateways that send the whole message without deltas.
        if (this.#hasText(item.id, event.output_index)) return;
        const whole = (item.content ?? []).map((part) => part.text ?? part.refusal ?? "").join("");
        if (whole) this.#text(item.id, event.output_index, whole, events);
        return;
      }
      case "function_call":
      case "custom_tool_call": {
        const call = this.#findCall(item.id, event.output_index) ?? this.#startCall(item, event.output_index, events);
        this.#reconcileArguments(call, item.arguments ?? item.input, events);
        this.#endCall(call, events);
        return;
      }
      default:
        return;
    }
  }

  #thinking(event: ResponsesEvent, part: string, events: ModelEvent[]): void {
    if (!event.delta) return;
    // Summary parts are separate paragraphs; keep them apart in the one reasoning text.
    const key = `${event.item_id ?? event.output_index ?? ""}/${part}`;
    const separator = this.#thinkingEmitted && key !== this.#lastThinkingPart ? "\n\n" : "";
    this.#lastThinkingPart = key;
    this.#thinkingEmitted = true;
    this.#thinkingOpen = true;
    events.push({ kind: "thinking_delta", text: separator + event.delta });
  }

  #text(itemId: string | null | undefined, outputIndex: number | null | undefined, delta: string, events: ModelEvent[]): void {
    this.#closeThinking(events);
    if (itemId) this.#textItems.add(itemId);
    if (outputIndex !== undefined && outputIndex !== null) this.#textItems.add(`#${outputIndex}`);
    events.push({ kind: "text_delta", text: delta });
  }

  #hasText(itemId: string | null | undefined, outputIndex: number | null | undefined): boolean {
    return (
      (!!itemId && this.#textItems.has(itemId)) ||
      (outputIndex !== undefined && outputIndex !== null && this.#textItems.has(`#${outputIndex}`))
    );
  }

  #startCall(item: OutputItem, outputIndex: number | null | undefined, events: ModelEvent[]): ToolCallState {
    this.#closeThinking(events);
    const call: ToolCallState = {
      index: this.#tools.length,
      itemId: item.id ?? undefined,
      outputIndex: outputIndex ?? undefined,
      arguments: "",
      ended: false,
    };
    this.#tools.push(call);
    const callId = item.call_id || item.id || `call_${crypto.randomUUID()}`;
    const custom = item.type === "custom_tool_call";
    events.push({ kind: "tool_call_start", index: call.index, callId, name: item.name ?? "", ...(custom && { custom: true as const }) });
    const initial = custom ? item.input : item.arguments;
    if (initial) this.#reconcileArguments(call, initial, events);
    return call;
  }

  /** Emits what the final arguments add to the streamed ones (all of it when nothing streamed). */
  #reconcileArguments(call: ToolCallState, final: string | null | undefined, events: ModelEvent[]): void {
    if (call.ended || !final || !final.startsWith(call.arguments) || final === call.arguments) return;
    const rest = final.slice(call.arguments.length);
    call.arguments = final;
    events.push({ kind: "tool_call_delta", index: call.index, delta: rest });
  }

  #endCall(call: ToolCallState, events: ModelEvent[]): void {
    if (call.ended) return;
    call.ended = true;
    events.push({ kind: "tool_call_end", index: call.index });
  }

  #findCall(itemId: string | null | undefined, outputIndex: number | null | undefined): ToolCallState | undefined {
    if (itemId) {
      const byId = this.#tools.find((call) => call.itemId === itemId);
      if (byId) return byId;
    }
    if (outputIndex === undefined || outputIndex === null) return undefined;
    return this.#tools.find((call) => call.outputIndex === outputIndex);
  }

  /** Reasoning items with encrypted content, the only kind that can be replayed with `store: false`. */
  #keepReasoning(raw: unknown, outputIndex: number | null | undefined): void {
    if (!isReasoningItem(raw) || typeof raw.encrypted_content !== "string") return;
    const order = outputIndex ?? this.#reasoningCount;
    this.#reasoningCount++;
    const key = typeof raw.id === "string" ? raw.id : `#${order}`;
    if (!this.#reasoning.has(key)) this.#reasoning.set(key, { order, item: raw });
  }

  #completeEvents(event: ResponsesEvent, incomplete: boolean): ModelEvent[] {
    const response = event.response;
    const events: ModelEvent[] = [];
    this.#closeThinking(events);
    for (const call of this.#tools) this.#endCall(call, events);
    // The final output repeats every item; it fills in any item whose done event was missed.
    for (const [index, item] of (response?.output ?? []).entries()) this.#keepReasoning(item, index);
    if (this.#reasoning.size > 0) {
      const items = [...this.#reasoning.values()].sort((a, b) => a.order - b.order).map((stored) => stored.item);
      events.push({ kind: "replay", value: { provider: RESPONSES_PROVIDER, data: items } });
    }
    if (response?.usage) events.push({ kind: "usage", usage: toUsage(response.usage) });
    events.push({ kind: "done", finish: this.#finish(incomplete, response?.incomplete_details?.reason) });
    this.#complete = true;
    return events;
  }

  #finish(incomplete: boolean, reason: string | null | undefined): FinishReason {
    if (this.#refused || (incomplete && reason === "content_filter")) return "refusal";
    if (incomplete && reason === "max_output_tokens") return "length"; // its tool calls are incomplete
    if (this.#tools.length > 0) return "tool_use";
    return "stop";
  }

  #closeThinking(events: ModelEvent[]): void {
    if (!this.#thinkingOpen) return;
    this.#thinkingOpen = false;
    events.push({ kind: "thinking_end" });
  }

  #errorEventFailure(event: ResponsesEvent): ProviderError {
    if (isRecord(event.error)) return classifyStreamError(event.error, this.#secrets);
    return classifyStreamError({ code: event.code, message: event.message }, this.#secrets);
  }

  #failedResponseFailure(event: ResponsesEvent): ProviderError {
    const error = event.response?.error;
    if (isRecord(error)) return classifyStreamError(error, this.#secrets);
    return new ProviderError("transient", "provider stream failed");
  }
}

function parseItem(raw: unknown): OutputItem | undefined {
  const parsed = ItemSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

function toUsage(usage: ResponsesUsage): Usage {
  return {
    inputTokens: usage.input_tokens ?? 0,
    outputTokens: usage.output_tokens ?? 0,
    cacheReadTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: 0,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
