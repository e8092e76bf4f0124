// What a provider call counts, whatever its end (docs/hosting.md#limits): the provider's
// own usage when it reported one, else its input estimate plus the output it streamed,
// at about 4 characters a token. Never 0 for a call the provider accepted.
import { anthropicMaxTokens } from "./anthropic-request.ts";
import { REQUEST_IMAGES_MAX } from "./image-budget.ts";
import type { ChatMessage, CountedUsage, ModelEvent, ModelRequest, ToolDefinition, Usage } from "./types.ts";

/** About this many characters make a token, in every estimate here. */
const CHARS_PER_TOKEN = 4;
/** What one image costs at most, about: Anthropic's ~1,600 tokens for a full-size image. */
const IMAGE_TOKENS = 1_600;

/** Rough token estimate of a request's input (4 characters a token, images at a flat rate). */
export function inputTokenEstimate(messages: ChatMessage[], tools: ToolDefinition[]): number {
  let images = 0;
  // Image data is not text the model reads: counted by the character it would swamp the estimate.
  const text = JSON.stringify(messages, (key, value: unknown) => {
    if (key !== "images" || !Array.isArray(value)) return value;
    images += value.length;
    return undefined;
  });
  // A request carries at most REQUEST_IMAGES_MAX images; older ones are a short note.
  return tokensOf(text.length + JSON.stringify(tools).length) + Math.min(images, REQUEST_IMAGES_MAX) * IMAGE_TOKENS;
}

/**
 * The most output the provider may send for this request: the cap the request carries
 * (`max_output_tokens`, or Anthropic's always-sent `max_tokens`); undefined when the
 * request sends none (an OpenAI-style model without `max_output_tokens`).
 */
export function maxOutputTokens(request: ModelRequest): number | undefined {
  if (request.model.provider === "anthropic") return anthropicMaxTokens(request);
  return request.model.maxOutputTokens;
}

/** Counts one accepted call's stream: the usage it reported, and the output it streamed meanwhile. */
export class CallMeter {
  #reported: Usage | undefined;
  #outputChars = 0;
  #reasoningChars = 0;

  constructor(readonly request: ModelRequest) {}

  observe(event: ModelEvent): void {
    switch (event.kind) {
      case "usage":
        this.#reported = event.usage;
        return;
      case "text_delta":
        this.#outputChars += event.text.length;
        return;
      case "tool_call_delta":
        this.#outputChars += event.delta.length;
        return;
      case "thinking_delta":
        this.#reasoningChars += event.text.length;
        return;
      case "tool_call_start":
        this.#outputChars += event.name.length;
        return;
      default:
        return;
    }
  }

  /** What the call counts as of now. */
  counted(): CountedUsage {
    if (this.#reported) return { usage: this.#reported, estimated: false };
    const reasoning = tokensOf(this.#reasoningChars);
    return {
      usage: {
        inputTokens: inputTokenEstimate(this.request.messages, this.request.tools),
        outputTokens: tokensOf(this.#outputChars) + reasoning,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: reasoning,
      },
      estimated: true,
    };
  }
}

function tokensOf(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
