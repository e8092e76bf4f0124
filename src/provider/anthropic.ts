// Anthropic Messages streaming provider: one POST, SSE events in, ModelEvents
// out, failures classified, abort honoured at every await.
import { buildAnthropicRequestBody } from "./anthropic-request.ts";
import { AnthropicStreamParser } from "./anthropic-stream.ts";
import { classifyHttpFailure, isProviderError, ProviderError, providerErrorFromNetwork } from "./failure.ts";
import { readSseEvents, type SseEvent } from "./sse.ts";
import type { CallTimings, ModelEvent, ModelRequest, Provider } from "./types.ts";
import { type WatchdogOptions, withStallWatchdog } from "./watchdog.ts";

/** The Messages API version this provider speaks (event and block shapes). */
export const ANTHROPIC_VERSION = "2023-06-01";
/** Enough of an error body to find the provider's message; the rest is discarded. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

export type AnthropicOptions = WatchdogOptions;

export function createAnthropicProvider(options: AnthropicOptions = {}): Provider {
  return { stream: (request, timings) => streamMessages(request, timings, options) };
}

async function* streamMessages(
  request: ModelRequest,
  timings: CallTimings | undefined,
  options: AnthropicOptions,
): AsyncGenerator<ModelEvent> {
  const secrets = [request.model.apiKey];
  const response = await send(request, timings);
  // Anthropic's error bodies ({"type":"error","error":{"type","message"}}) are read by classifyHttpFailure.
  if (!response.ok) throw await failureFromResponse(response, request.signal, secrets);
  if (!response.body) throw new ProviderError("transient", "provider returned an empty response");

  const parser = new AnthropicStreamParser(secrets);
  const events = withStallWatchdog(readSseEvents(response.body, request.signal), options);
  try {
    while (true) {
      const message = await nextOrEnd(events, parser, request.signal);
      if (message === undefined) break;
      if (!message.data.trim()) continue; // keep-alive events some gateways send
      yield* parser.push(message.event, parseJson(message.data));
      if (parser.complete) return;
    }
  } finally {
    await events.return(undefined);
  }
  yield* parser.end();
}

/**
 * The next SSE event, or undefined at the end. A transport failure (cut, stall) after
 * message_delta's stop_reason also ends the stream: only the empty message_stop is lost.
 */
async function nextOrEnd(
  events: AsyncGenerator<SseEvent>,
  parser: AnthropicStreamParser,
  signal: AbortSignal,
): Promise<SseEvent | undefined> {
  try {
    const step = await events.next();
    return step.done ? undefined : step.value;
  } catch (error) {
    if (parser.finished && !signal.aborted && isProviderError(error)) return undefined;
    throw error;
  }
}

async function send(request: ModelRequest, timings: CallTimings | undefined): Promise<Response> {
  const { model, signal } = request;
  const url = `${model.baseUrl.replace(/\/+$/, "")}/messages`;
  const sentAt = Date.now();
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "x-api-key": model.apiKey,
        "anthropic-version": ANTHROPIC_VERSION,
        "content-type": "application/json",
        accept: "text/event-stream",
        ...model.headers,
      },
      body: buildAnthropicRequestBody(request),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw providerErrorFromNetwork(error);
  }
  if (timings) {
    timings.httpStatus = response.status;
    timings.ttfbMs = Date.now() - sentAt;
  }
  return response;
}

async function failureFromResponse(response: Response, signal: AbortSignal, secrets: string[]): Promise<ProviderError> {
  let bodyText = "";
  try {
    bodyText = await readBoundedText(response.body, ERROR_BODY_MAX_BYTES);
  } catch {
    if (signal.aborted) throw signal.reason;
    // The status alone still classifies the failure.
  }
  return classifyHttpFailure(response.status, response.headers, bodyText, secrets);
}

async function readBoundedText(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, maxBytes - bytes);
      bytes += part.byteLength;
      text += decoder.decode(part, { stream: true });
    }
    return text + decoder.decode();
  } finally {
    void reader.cancel().catch(() => undefined); // the rest of the body is not needed
  }
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ProviderError("transient", "provider sent a malformed stream event");
  }
}
