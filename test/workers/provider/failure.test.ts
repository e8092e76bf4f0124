// Verifies provider failure classification, Retry-After parsing, redaction and
// the retry backoff bounds.
import { describe, expect, it } from "vitest";
import {
  classifyHttpFailure,
  classifyStreamError,
  isContextOverflow,
  parseDurationMs,
  parseRetryAfterMs,
  ProviderError,
  providerErrorFromNetwork,
  redact,
  withoutPromptQuotes,
} from "../../../src/provider/failure.ts";
import { isRetryable, planRetry, RETRY_MAX_DELAY_MS, retryDelayMs, sleepUnlessAborted } from "../../../src/provider/retry.ts";

const KEY = "sk-test-never-logged-0123456789";
const errorBody = (message: string) => JSON.stringify({ error: { message, type: "invalid_request_error" } });

describe("classifyHttpFailure()", () => {
  it.each([
    [429, "rate_limit"],
    [401, "authorization"],
    [403, "authorization"],
    [408, "transient"],
    [409, "transient"],
    [425, "transient"],
    [500, "transient"],
    [503, "transient"],
    [400, "request"],
    [404, "request"],
    [422, "request"],
  ])("classifies HTTP %i as %s", (status, kind) => {
    const error = classifyHttpFailure(status, new Headers(), "", [KEY]);
    expect(error).toMatchObject({ kind, status });
    expect(isRetryable(error)).toBe(kind === "rate_limit" || kind === "transient");
    expect(error.message).toBe(`provider returned HTTP ${status}`);
  });

  it("quotes the provider's error message", () => {
    const error = classifyHttpFailure(400, new Headers(), errorBody("Unknown model fake-9"), []);
    expect(error.message).toBe("provider returned HTTP 400: Unknown model fake-9");
  });

  it("redacts the configured key and anything shaped like a key", () => {
    const body = errorBody(`bad key ${KEY}, also sk-proj-ABCDEFGHijklmnop and custom-secret-value`);
    const error = classifyHttpFailure(401, new Headers(), body, [KEY, "custom-secret-value"]);
    expect(error.message).toBe("provider returned HTTP 401: bad key [redacted], also [redacted] and [redacted]");
  });

  it("truncates long provider messages to 300 characters", () => {
    const error = classifyHttpFailure(400, new Headers(), errorBody("x".repeat(5000)), []);
    const detail = error.message.slice("provider returned HTTP 400: ".length);
    expect(detail).toBe(`${"x".repeat(300)}…`);
  });

  it("does not echo bodies that are not JSON", () => {
    const error = classifyHttpFailure(502, new Headers(), "<html>upstream said: Fix the bug</html>", []);
    expect(error.message).toBe("provider returned HTTP 502");
  });

  it("takes the Retry-After header into retryAfterMs", () => {
    const headers = new Headers({ "retry-after": "7" });
    expect(classifyHttpFailure(429, headers, "", []).retryAfterMs).toBe(7000);
  });
});

describe("context overflow", () => {
  it.each([
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
    "prompt is too long: 210000 tokens > 200000 maximum",
    "Input is too long for requested model.",
    "The input exceeds the context window of this model.",
  ])("classifies an HTTP 400 saying %j as context_overflow", (message) => {
    const error = classifyHttpFailure(400, new Headers(), errorBody(message), []);
    expect(error).toMatchObject({ kind: "context_overflow", status: 400 });
    expect(isContextOverflow(error)).toBe(true);
    expect(isRetryable(error)).toBe(false);
  });

  it("classifies an in-stream error saying the prompt is too long as context_overflow", () => {
    const error = classifyStreamError({ code: "invalid_request_error", message: "prompt is too long: 210000 tokens" }, []);
    expect(error.kind).toBe("context_overflow");
    expect(isContextOverflow(classifyStreamError({ code: 400, message: "maximum context length exceeded" }, []))).toBe(true);
  });

  it("keeps the kind the status gives when a retryable or authorization failure mentions the context", () => {
    expect(classifyHttpFailure(500, new Headers(), errorBody("context length check crashed"), []).kind).toBe("transient");
    expect(classifyHttpFailure(429, new Headers(), errorBody("too many tokens per minute"), []).kind).toBe("rate_limit");
    expect(classifyHttpFailure(401, new Headers(), errorBody("no access to the long context window"), []).kind).toBe("authorization");
  });

  it("keeps other request failures, and errors that are not provider errors, out of it", () => {
    const error = classifyHttpFailure(400, new Headers(), errorBody("Unknown model fake-9"), []);
    expect(error.kind).toBe("request");
    expect(isContextOverflow(error)).toBe(false);
    expect(isContextOverflow(new Error("prompt is too long"))).toBe(false);
  });
});

describe("parseRetryAfterMs()", () => {
  const parse = (headers: Record<string, string>, now?: number) => parseRetryAfterMs(new Headers(headers), now);

  it("reads Retry-After seconds, fractional seconds and retry-after-ms", () => {
    expect(parse({ "retry-after": "7" })).toBe(7000);
    expect(parse({ "retry-after": "1.5" })).toBe(1500);
    expect(parse({ "retry-after-ms": "250", "retry-after": "7" })).toBe(250);
  });

  it("reads Retry-After as an HTTP date relative to now", () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:28:00 GMT");
    expect(parse({ "retry-after": "Wed, 21 Oct 2026 07:28:30 GMT" }, now)).toBe(30_000);
    expect(parse({ "retry-after": "Wed, 21 Oct 2026 07:27:00 GMT" }, now)).toBe(0);
  });

  it("reads OpenAI's reset durations and takes the longer one", () => {
    expect(parse({ "x-ratelimit-reset-requests": "1s" })).toBe(1000);
    expect(parse({ "x-ratelimit-reset-tokens": "6m0s" })).toBe(360_000);
    expect(parse({ "x-ratelimit-reset-requests": "120ms", "x-ratelimit-reset-tokens": "2.5s" })).toBe(2500);
  });

  it("ignores values it cannot read", () => {
    expect(parse({})).toBeUndefined();
    expect(parse({ "retry-after": "soon" })).toBeUndefined();
    expect(parse({ "x-ratelimit-reset-tokens": "in a while" })).toBeUndefined();
  });
});

describe("parseDurationMs()", () => {
  it.each([
    ["1s", 1000],
    ["6m0s", 360_000],
    ["250ms", 250],
    ["1h2m3.5s", 3_723_500],
    ["20", 20_000],
  ])("reads %s as %i ms", (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });
});

describe("classifyStreamError()", () => {
  it.each([
    [{ code: "rate_limit_exceeded" }, "rate_limit"],
    [{ code: "insufficient_quota" }, "rate_limit"],
    [{ code: "invalid_api_key" }, "authorization"],
    [{ type: "server_error" }, "transient"],
    [{ type: "overloaded" }, "transient"],
    [{ code: "context_length_exceeded" }, "request"],
    [{ code: 503 }, "transient"],
  ])("classifies %o as %s", (fields, kind) => {
    expect(classifyStreamError({ message: "m", ...fields }, [])).toMatchObject({ kind });
  });

  it("redacts keys from the message", () => {
    const error = classifyStreamError({ message: `key ${KEY} revoked`, code: "invalid_api_key" }, [KEY]);
    expect(error.message).toBe("provider stream failed: key [redacted] revoked");
  });
});

describe("providerErrorFromNetwork()", () => {
  it("never repeats the transport error's text", () => {
    const error = providerErrorFromNetwork(new TypeError(`fetch failed for https://host/v1?key=${KEY}`));
    expect(error).toMatchObject({ kind: "transient", message: "could not reach the provider" });
  });
});

describe("redact()", () => {
  it("ignores secrets too short to be keys", () => {
    expect(redact("a bc", ["a", ""])).toBe("a bc");
  });
});

describe("isRetryable()", () => {
  it("retries rate limits and transient failures only", () => {
    expect(isRetryable(new ProviderError("rate_limit", "x"))).toBe(true);
    expect(isRetryable(new ProviderError("transient", "x"))).toBe(true);
    expect(isRetryable(new ProviderError("authorization", "x"))).toBe(false);
    expect(isRetryable(new ProviderError("request", "x"))).toBe(false);
    expect(isRetryable(new Error("boom"))).toBe(false);
  });
});

describe("retryDelayMs()", () => {
  const almostOne = () => 0.999_999;

  it("stays within the exponential ceiling for each attempt", () => {
    expect(retryDelayMs(1, undefined, almostOne)).toBeLessThan(500);
    expect(retryDelayMs(2, undefined, almostOne)).toBeLessThan(1000);
    expect(retryDelayMs(4, undefined, almostOne)).toBeLessThan(4000);
    expect(retryDelayMs(1, undefined, () => 0)).toBe(0);
  });

  it("never exceeds the backoff cap however many attempts failed", () => {
    for (const attempt of [5, 6, 10, 50, 1000]) {
      const delay = retryDelayMs(attempt, undefined, almostOne);
      expect(delay).toBeLessThanOrEqual(RETRY_MAX_DELAY_MS);
      expect(delay).toBeGreaterThan(RETRY_MAX_DELAY_MS - 10);
    }
  });

  it("waits at least the provider's Retry-After", () => {
    const failure = new ProviderError("rate_limit", "x", { status: 429, retryAfterMs: 7000 });
    expect(retryDelayMs(1, failure, () => 0)).toBe(7000);
  });

  it("does not shorten a long Retry-After (the retry budget decides whether to wait it)", () => {
    const failure = new ProviderError("rate_limit", "slow", { retryAfterMs: 120_000 });
    expect(retryDelayMs(1, failure, () => 0)).toBe(120_000);
  });
});

describe("planRetry()", () => {
  const now = Date.UTC(2026, 0, 2, 3, 4, 5);

  it("waits the provider's Retry-After when what is left of the budget covers it", () => {
    const failure = new ProviderError("rate_limit", "provider returned HTTP 429", { status: 429, retryAfterMs: 30_000 });
    expect(planRetry(1, failure, 60_000, now, () => 0)).toEqual({ waitMs: 30_000 });
    expect(planRetry(1, failure, 30_000, now, () => 0)).toEqual({ waitMs: 30_000 });
  });

  it("refuses a Retry-After beyond what is left, saying the budget is spent and when the provider said to retry", () => {
    const failure = new ProviderError("rate_limit", "provider returned HTTP 429: slow down", { status: 429, retryAfterMs: 45_000 });
    const plan = planRetry(2, failure, 20_500, now, () => 0);
    expect(plan).toEqual({ failure: expect.any(ProviderError) });
    const refused = (plan as { failure: ProviderError }).failure;
    expect(refused).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 45_000 });
    expect(refused.message).toBe(
      "provider returned HTTP 429: slow down — retry budget spent: the provider said to retry in 45 s (at 03:04:50 UTC), 20.5 s of waiting is left",
    );
  });

  it("refuses our own backoff too once the budget is used up", () => {
    const plan = planRetry(3, new ProviderError("transient", "provider returned HTTP 503"), 0, now, () => 0.5);
    expect(plan).toEqual({ failure: expect.any(ProviderError) });
    expect((plan as { failure: ProviderError }).failure.message).toBe(
      "provider returned HTTP 503 — retry budget spent: the next retry would wait 1 s, 0 s of waiting is left",
    );
    expect(planRetry(3, new ProviderError("transient", "x"), 0, now, () => 0)).toEqual({ waitMs: 0 });
  });
});

describe("sleepUnlessAborted()", () => {
  it("rejects at once when the signal is already aborted", async () => {
    const reason = new Error("stop");
    await expect(sleepUnlessAborted(60_000, AbortSignal.abort(reason))).rejects.toBe(reason);
  });

  it("rejects with the reason when the signal aborts during the wait", async () => {
    const controller = new AbortController();
    const sleeping = sleepUnlessAborted(60_000, controller.signal);
    const reason = new Error("cancelled");
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
  });

  it("resolves after the delay", async () => {
    await expect(sleepUnlessAborted(1, new AbortController().signal)).resolves.toBeUndefined();
  });
});

describe("withoutPromptQuotes()", () => {
  it("withholds a message that quotes the prompt, even re-wrapped or with escaped newlines", () => {
    const prompt = ["function launch() {\n  return 'tangerine seven';\n}"];
    const quoting = new ProviderError("request", "provider returned HTTP 400: bad input near function launch() {\\n  return 'tangerine", {
      status: 400,
    });
    const withheld = withoutPromptQuotes(quoting, prompt);
    expect(withheld.message).not.toContain("tangerine");
    expect(withheld).toMatchObject({ kind: "request", status: 400 });
  });

  it("keeps a message that does not quote the prompt, such as one naming a long tool call id", () => {
    const error = new ProviderError(
      "request",
      "provider returned HTTP 400: tool_call_id call_abcdefghijklmnopqrstuvwxyz012345 has no response",
    );
    expect(withoutPromptQuotes(error, ["please read the file"])).toBe(error);
  });
});
