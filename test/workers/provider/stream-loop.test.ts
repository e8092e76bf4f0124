// Verifies what every provider shares, once per wire API against the scripted
// fake provider: HTTP failures, cut, short, malformed and stalled streams, abort.
import { describe, expect, it } from "vitest";
import { createProvider, type ModelConfig } from "../../../src/provider/index.ts";
import { ProviderError } from "../../../src/provider/failure.ts";
import { isRetryable } from "../../../src/provider/retry.ts";
import { anthropicError, anthropicStream, messageStart, textBlock } from "../../fixtures/anthropic/stream.ts";
import { responsesStream, responsesText } from "../../fixtures/openai-responses/stream.ts";
import { chatChunk, chatText, createScenario, httpError, type ScriptedResponse, type Step } from "../../support/fake-provider.ts";
import { collect, collectUntilFailure, providerHarness } from "../../support/provider-harness.ts";

interface ProviderCase {
  model: Omit<ModelConfig, "baseUrl">;
  /** A non-streaming error response shaped like this provider's. */
  errorResponse(status: number, message: string, headers?: Record<string, string>): ScriptedResponse;
  /** Steps that start the answer and stream `text` as one text_delta; the response is not complete yet. */
  opening(text: string): Step[];
  /** A whole text answer. */
  answer(text: string): ScriptedResponse;
}

const OPENAI_KEY = "sk-test-never-logged-0123456789";
/** Not shaped like a key, so only the configured key's redaction can hide it. */
const ANTHROPIC_KEY = "fake-anthropic-key-never-logged-0123456789";
const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  429: "rate_limit_error",
  529: "overloaded_error",
};

const PROVIDERS: ProviderCase[] = [
  {
    model: { name: "fake-model", provider: "openai-chat", apiKey: OPENAI_KEY, model: "fake-1", contextWindow: 128_000 },
    errorResponse: (status, message, headers) => httpError(status, message, headers),
    opening: (text) => [chatChunk("chatcmpl-open", { role: "assistant", content: "" }), chatChunk("chatcmpl-open", { content: text })],
    answer: (text) => chatText([text]),
  },
  {
    model: { name: "fake-responses", provider: "openai-responses", apiKey: OPENAI_KEY, model: "fake-responses-1", contextWindow: 200_000 },
    errorResponse: (status, message, headers) => httpError(status, message, headers),
    opening: (text) => responsesStream().message([text]).response().steps ?? [],
    answer: (text) => responsesText([text]),
  },
  {
    model: { name: "claude", provider: "anthropic", apiKey: ANTHROPIC_KEY, model: "claude-sonnet-4-5", contextWindow: 200_000 },
    errorResponse: (status, message, headers) => anthropicError(status, ANTHROPIC_ERROR_TYPES[status] ?? "api_error", message, headers),
    opening: (text) => [messageStart(), ...textBlock(0, [text])],
    answer: (text) => anthropicStream({ text: [text] }),
  },
];

describe.each(PROVIDERS)("$model.provider provider stream loop", ({ model, errorResponse, opening, answer }) => {
  const { aModel, aRequest, streamOf, failureOf } = providerHarness(model);

  it("classifies 401 as authorization without echoing the key", async () => {
    const error = await failureOf([errorResponse(401, `Incorrect API key provided: ${model.apiKey}. Check it.`)]);
    expect(error).toMatchObject({ kind: "authorization", status: 401 });
    expect(isRetryable(error)).toBe(false);
    expect(error.message).toContain("provider returned HTTP 401: Incorrect API key provided");
    expect(error.message).not.toContain(model.apiKey);
    expect(error.message).not.toContain("sk-test");
  });

  it("classifies 429 as rate_limit and honours Retry-After seconds", async () => {
    const error = await failureOf([errorResponse(429, "Rate limit reached", { "retry-after": "7" })]);
    expect(error).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 7000 });
    expect(isRetryable(error)).toBe(true);
  });

  it("classifies 500 as transient", async () => {
    const error = await failureOf([errorResponse(500, "The server had an error")]);
    expect(error).toMatchObject({ kind: "transient", status: 500 });
    expect(isRetryable(error)).toBe(true);
  });

  it("classifies 529 overloaded as transient, quoting the provider's message", async () => {
    const error = await failureOf([errorResponse(529, "Overloaded")]);
    expect(error).toMatchObject({ kind: "transient", status: 529, message: "provider returned HTTP 529: Overloaded" });
    expect(isRetryable(error)).toBe(true);
  });

  it("classifies 400 as a request error", async () => {
    const error = await failureOf([errorResponse(400, "messages.1.content.0: unexpected tool_use_id")]);
    expect(error).toMatchObject({ kind: "request", status: 400 });
    expect(isRetryable(error)).toBe(false);
  });

  it("classifies a 400 saying the prompt is too long as context_overflow", async () => {
    const error = await failureOf([errorResponse(400, "prompt is too long: 210000 tokens > 200000 maximum")]);
    expect(error).toMatchObject({ kind: "context_overflow", status: 400 });
    expect(isRetryable(error)).toBe(false);
  });

  it("fails to reach an unreachable provider with a transient error that hides the URL", async () => {
    const scenario = await createScenario([]);
    const request = aRequest(scenario, { model: aModel({ baseUrl: "http://127.0.0.1:1/v1?key=secret-in-url" }) });
    const { error } = await collectUntilFailure(createProvider(model.provider).stream(request)[Symbol.asyncIterator]());
    expect(error).toMatchObject({ kind: "transient", message: "could not reach the provider" });
  });

  it("fails a cut stream as transient", async () => {
    // Gated so the text is read before the socket is destroyed.
    const { scenario, iterator } = await streamOf([{ steps: [...opening("partial"), { gate: "cut" }, { cut: true }] }]);
    expect((await iterator.next()).value).toMatchObject({ kind: "start" });
    expect((await iterator.next()).value).toEqual({ kind: "text_delta", text: "partial" });
    await scenario.release("cut");
    const { error } = await collectUntilFailure(iterator);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "transient", message: "provider stream was interrupted" });
  });

  it("fails a stream that closes before the response is complete as transient", async () => {
    const error = await failureOf([{ steps: opening("par") }]);
    expect(error).toMatchObject({ kind: "transient", message: "provider stream ended before the response was complete" });
  });

  it("fails a malformed event as transient", async () => {
    const error = await failureOf([{ steps: [...opening("par"), { data: "{not json" }] }]);
    expect(error).toMatchObject({ kind: "transient", message: "provider sent a malformed stream event" });
  });

  it("stops at once with the abort reason when aborted mid-stream", async () => {
    const controller = new AbortController();
    const { iterator } = await streamOf([{ steps: [...opening("a"), { hang: true }] }], { signal: controller.signal });
    expect((await iterator.next()).value).toMatchObject({ kind: "start" });
    expect((await iterator.next()).value).toEqual({ kind: "text_delta", text: "a" });

    const reason = new Error("user cancelled");
    const pending = iterator.next();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it("rejects with the abort reason when aborted before the request", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled early");
    controller.abort(reason);
    const { scenario, iterator } = await streamOf([answer("never")], { signal: controller.signal });
    await expect(iterator.next()).rejects.toBe(reason);
    expect(await scenario.requests()).toEqual([]);
  });

  it("fails a stalled stream with a stall error after the stall timeout", async () => {
    const { iterator } = await streamOf([{ steps: [...opening("a"), { gate: "never" }] }], {}, { stallTimeoutMs: 200 });
    const { events, error } = await collectUntilFailure(iterator);
    expect(events.map((e) => e.kind)).toEqual(["start", "text_delta"]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "transient", message: "provider stream stalled: no data for 0.2 s" });
  });

  it("tells a provider that sends its headers and then nothing apart from one that stalls mid-answer", async () => {
    const { iterator } = await streamOf([{ steps: [{ gate: "never" }] }], {}, { stallTimeoutMs: 200 });
    const { events, error } = await collectUntilFailure(iterator);
    expect(events).toEqual([]);
    expect(error).toMatchObject({
      kind: "transient",
      message: "provider first-response timeout: response headers, then no data for 0.2 s",
    });
  });

  it("fills in the HTTP status and time to first byte", async () => {
    const scenario = await createScenario([answer("ok")]);
    const timings: { httpStatus?: number; ttfbMs?: number } = {};
    await collect(createProvider(model.provider).stream(aRequest(scenario), timings));
    expect(timings.httpStatus).toBe(200);
    expect(timings.ttfbMs).toBeGreaterThanOrEqual(0);
  });
});

describe("createProvider()", () => {
  it("builds a provider for every configured wire API", () => {
    for (const { model } of PROVIDERS) expect(typeof createProvider(model.provider).stream).toBe("function");
  });
});
