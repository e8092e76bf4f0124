// Keys of a model's `extra_body` and `headers` that would turn accounting off: they
// control streaming, usage reporting, output size, sampling count or the model, which
// byok-edge sets itself and the budget relies on (docs/hosting.md#limits). Refused
// when a model is configured, and dropped again when a request is built, so a row
// stored before the rule cannot override them either.

/**
 * Body keys, compared without case. Chat Completions: stream, stream_options
 * (include_usage), max_tokens, max_completion_tokens, n; Responses: max_output_tokens,
 * background (the response goes on generating after the stream ends); Anthropic
 * Messages: max_tokens, stream; all: model. The other names of the same controls that
 * OpenAI-compatible servers and gateways pass on: best_of (vLLM's sampling count),
 * max_new_tokens (Hugging Face TGI), generationConfig / generation_config (Gemini's
 * maxOutputTokens and candidateCount).
 */
const USAGE_BODY_KEYS: ReadonlySet<string> = new Set([
  "stream",
  "stream_options",
  "max_tokens",
  "max_completion_tokens",
  "max_output_tokens",
  "n",
  "model",
  "background",
  "best_of",
  "max_new_tokens",
  "generationconfig",
  "generation_config",
]);

/**
 * Header names: `accept` and `content-type` (the answer's framing: a JSON answer instead
 * of a stream), and a body key's name as a header (`x-stream`, `max-tokens`…), which
 * some gateways take in place of the body field.
 */
const FRAMING_HEADERS: ReadonlySet<string> = new Set(["accept", "content-type"]);

/** The first usage-controlling key of an `extra_body`, or undefined. */
function usageKeyOfBody(extraBody: Readonly<Record<string, unknown>> | undefined): string | undefined {
  return Object.keys(extraBody ?? {}).find(isUsageBodyKey);
}

/** The first usage-controlling header name (lower-cased), or undefined. */
function usageKeyOfHeaders(headers: Readonly<Record<string, string>> | undefined): string | undefined {
  return Object.keys(headers ?? {})
    .map((name) => name.toLowerCase())
    .find(isUsageHeader);
}

/** The `extra_body` without usage-controlling keys: what a request body may take of it. */
export function usageSafeBody(extraBody: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(extraBody ?? {}).filter(([key]) => !isUsageBodyKey(key)));
}

/** The headers without usage-controlling ones: what a request may take of them. */
export function usageSafeHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !isUsageHeader(name.toLowerCase())));
}

function isUsageBodyKey(key: string): boolean {
  return USAGE_BODY_KEYS.has(key.toLowerCase());
}

function isUsageHeader(lower: string): boolean {
  if (FRAMING_HEADERS.has(lower)) return true;
  const asKey = lower.replace(/^x-/, "").replaceAll("-", "_");
  return USAGE_BODY_KEYS.has(asKey);
}

/** A usage-controlling key in a model's configuration: where it is and why it is refused. */
export interface UsageKeyProblem {
  /** `extra_body.<key>` or `headers.<name>`. */
  path: string;
  message: string;
}

/** The first usage-controlling key of a model's `extra_body` or `headers`, or undefined. */
export function usageKeyProblem(
  extraBody: Readonly<Record<string, unknown>> | null | undefined,
  headers: Readonly<Record<string, string>> | null | undefined,
): UsageKeyProblem | undefined {
  const bodyKey = usageKeyOfBody(extraBody ?? undefined);
  if (bodyKey !== undefined) {
    return {
      path: `extra_body.${bodyKey}`,
      message: `"${bodyKey}" cannot be set in extra_body; byok-edge sets it so every call is counted`,
    };
  }
  const header = usageKeyOfHeaders(headers ?? undefined);
  if (header !== undefined) {
    return { path: `headers.${header}`, message: `"${header}" cannot be set in headers; byok-edge sets it so every call is counted` };
  }
  return undefined;
}
