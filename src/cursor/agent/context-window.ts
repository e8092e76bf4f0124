// How much of a model's context window a request may fill: the window less what
// is kept for the answer. Compaction starts past it, and an input that stays past
// it even compacted is refused before any provider call (docs/protocol.md#compaction).
import { AppError } from "../../core/errors.ts";
import { inputTokenEstimate } from "../../provider/metering.ts";
import type { ChatMessage, ModelConfig, ToolDefinition } from "../../provider/types.ts";

/** Rough token estimate, enough to decide before a call overflows (the one the budget uses too). */
export function estimateTokens(messages: ChatMessage[], tools: ToolDefinition[]): number {
  return inputTokenEstimate(messages, tools);
}

/** The tokens of the window kept for the model's answer. */
function outputReserve(model: ModelConfig): number {
  return Math.min(model.maxOutputTokens ?? 8_192, Math.floor(model.contextWindow / 4));
}

/** The most input tokens a request to this model may carry. */
export function inputLimit(model: ModelConfig): number {
  return model.contextWindow - outputReserve(model);
}

/** Whether a request of this size would overflow the model's window (leaving room for output). */
export function exceedsWindow(model: ModelConfig, estimatedTokens: number): boolean {
  return estimatedTokens > inputLimit(model);
}

/** An input too large for the model even without the earlier conversation, with the sizes that decide it. */
export function inputDoesNotFit(model: ModelConfig, estimatedTokens: number): AppError {
  const n = (tokens: number) => tokens.toLocaleString("en-US");
  return new AppError(
    "resource_exhausted",
    `the input is about ${n(estimatedTokens)} tokens even with the earlier conversation compacted, and ${model.name} takes at most ` +
      `${n(inputLimit(model))} (a context window of ${n(model.contextWindow)} tokens, ${n(outputReserve(model))} of them kept for its answer); ` +
      "send a shorter message or attach less",
  );
}
