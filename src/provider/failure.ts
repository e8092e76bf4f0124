// Classified provider failures with client-safe messages. Upstream text is
// truncated and scrubbed of keys; request bodies and URLs never appear.
import { redactSecrets } from "./redact.ts";
import type { ProviderFailureKind } from "./types.ts";

/** Longest piece of upstream error text we pass on; enough to explain, too short to leak much. */
const DETAIL_MAX_CHARS = 300;
const REDACTED = "[redacted]";
/** Secret-looking tokens (OpenAI/Anthropic/DeepSeek style keys) even when not the configured key. */
const KEY_PATTERN = /sk-[A-Za-z0-9_-]{8,}/g;
/** How providers word a refusal because the prompt is longer than the model's context window. */
const CONTEXT_OVERFLOW_TEXT =
  /prompt is too long|context length|context window|maximum context|too many tokens|context_length_exceeded|input is too long/i;

export interface ProviderErrorOptions {
  status?: number;
  retryAfterMs?: number;
}

export class ProviderError extends Error {
  override readonly name = "ProviderError";
  readonly kind: ProviderFailureKind;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(kind: ProviderFailureKind, message: string, options: ProviderErrorOptions = {}) {
    super(message);
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A provider message quoting this many characters of the prompt in a row is withheld. */
const QUOTE_MIN_CHARS = 24;

/**
 * The same failure without provider text that quotes the prompt (some APIs echo
 * the offending input in their error), so no prompt text reaches the client.
 */
export function withoutPromptQuotes(error: ProviderError, promptTexts: string[]): ProviderError {
  // Whitespace is normalised on both sides: an echo may re-wrap or escape newlines.
  const normalize = (t: string) => t.replace(/\\[nrt]/g, " ").replace(/\s+/g, " ");
  const prompt = normalize(promptTexts.join(" "));
  const text = normalize(error.message);
  for (let i = 0; i + QUOTE_MIN_CHARS <= text.length; i++) {
    if (prompt.includes(text.slice(i, i + QUOTE_MIN_CHARS))) {
      const status = error.status !== undefined ? `HTTP ${error.status}` : "an error";
      return new ProviderError(error.kind, `provider returned ${status} (its message quoted the prompt and is withheld)`, {
        ...(error.status !== undefined && { status: error.status }),
        ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }),
      });
    }
  }
  return error;
}

export function isProviderError(error: unknown): error is ProviderError {
  return error instanceof ProviderError;
}

/** A provider's refusal because the prompt does not fit its context window (compaction may help). */
export function isContextOverflow(error: unknown): boolean {
  return error instanceof ProviderError && error.kind === "context_overflow";
}

export function classifyHttpFailure(status: number, headers: Headers, bodyText: string, secrets: string[]): ProviderError {
  const detail = errorDetail(bodyText, secrets);
  const message = `provider returned HTTP ${status}${detail ? `: ${detail}` : ""}`;
  return new ProviderError(refineRequestKind(kindForStatus(status), message), message, {
    status,
    retryAfterMs: parseRetryAfterMs(headers),
  });
}

/** Transport errors can carry credentialed URLs, so their text is never passed on. */
export function providerErrorFromNetwork(_error: unknown): ProviderError {
  return new ProviderError("transient", "could not reach the provider");
}

/** Classifies an in-stream `{"error": {...}}` payload by its code or type. */
export function classifyStreamError(error: unknown, secrets: string[]): ProviderError {
  const fields = isRecord(error) ? error : {};
  const code = fields.code;
  const message = typeof fields.message === "string" ? redact(fields.message, secrets) : "";
  const text = `provider stream failed${message ? `: ${message}` : ""}`;
  // Some gateways (OpenRouter) put the upstream HTTP status in `code`.
  if (typeof code === "number") return new ProviderError(refineRequestKind(kindForStatus(code), text), text, { status: code });
  const label = [code, fields.type].find((v): v is string => typeof v === "string") ?? "";
  return new ProviderError(refineRequestKind(kindForErrorLabel(label), text), text);
}

/** A request failure whose message says the prompt is too long is a context overflow. */
function refineRequestKind(kind: ProviderFailureKind, message: string): ProviderFailureKind {
  return kind === "request" && CONTEXT_OVERFLOW_TEXT.test(message) ? "context_overflow" : kind;
}

function kindForStatus(status: number): ProviderFailureKind {
  if (status === 429) return "rate_limit";
  if (status === 401 || status === 403) return "authorization";
  if (status === 408 || status === 409 || status === 425 || status >= 500) return "transient";
  return "request";
}

function kindForErrorLabel(label: string): ProviderFailureKind {
  switch (label) {
    case "rate_limit_exceeded":
    case "rate_limit_error":
    case "insufficient_quota":
      return "rate_limit";
    case "invalid_api_key":
    case "authentication_error":
    case "permission_error":
      return "authorization";
    case "server_error":
    case "overloaded":
    case "overloaded_error":
    case "api_error":
      return "transient";
    default:
      return "request";
  }
}

/** The provider's own error message (JSON bodies only: other bodies may echo the request). */
function errorDetail(bodyText: string, secrets: string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bodyText);
  } catch {
    return ""; // not JSON: say nothing rather than risk echoing the request
  }
  const message = findMessage(parsed);
  return message ? redact(message, secrets) : "";
}

function findMessage(body: unknown): string | undefined {
  if (Array.isArray(body)) return findMessage(body[0]); // Gemini wraps errors in an array
  if (!isRecord(body)) return undefined;
  const { error } = body;
  if (typeof error === "string") return error;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  if (typeof body.message === "string") return body.message;
  if (typeof body.detail === "string") return body.detail;
  return undefined;
}

/**
 * @internal Removes secrets (whole, their runs of ≥ 8 characters and their encodings: redact.ts),
 * then truncates: redacting first means no key prefix survives a cut.
 */
export function redact(text: string, secrets: string[]): string {
  const out = redactSecrets(text, secrets, REDACTED).replace(KEY_PATTERN, REDACTED).replace(/\s+/g, " ").trim();
  return out.length > DETAIL_MAX_CHARS ? `${out.slice(0, DETAIL_MAX_CHARS)}…` : out;
}

/** @internal Retry-After in any of the forms providers send; undefined when none is usable. */
export function parseRetryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const ms = parseNumber(headers.get("retry-after-ms"));
  if (ms !== undefined) return Math.ceil(ms);
  const retryAfter = headers.get("retry-after");
  if (retryAfter !== null) {
    const seconds = parseNumber(retryAfter);
    if (seconds !== undefined) return Math.ceil(seconds * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  // OpenAI's per-limit resets; the longer one is the limit that was hit or will be next.
  const resets = ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"]
    .map((name) => parseDurationMs(headers.get(name)))
    .filter((v): v is number => v !== undefined);
  return resets.length > 0 ? Math.max(...resets) : undefined;
}

function parseNumber(value: string | null): number | undefined {
  if (value === null || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return undefined;
  return Number(value);
}

const DURATION_UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };

/** @internal Go-style durations ("1s", "6m0s", "250ms", "1h2m3.5s"); a bare number means seconds. */
export function parseDurationMs(value: string | null): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  const bare = parseNumber(text);
  if (bare !== undefined) return Math.ceil(bare * 1000);
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, , unit] of text.matchAll(/(\d+(\.\d+)?)(ms|h|m|s)/g)) {
    total += Number(amount) * (DURATION_UNIT_MS[unit ?? "s"] ?? 1000);
  }
  return Math.ceil(total);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
