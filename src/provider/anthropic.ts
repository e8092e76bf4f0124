// Anthropic Messages streaming provider: one POST, SSE events in, ModelEvents
// out, failures classified, abort honoured at every await.
import { buildAnthropicRequestBody } from "./anthropic-request.ts";
import { AnthropicStreamParser } from "./anthropic-stream.ts";
import { postStreaming, secretsOf } from "./http.ts";
import { nextEventOrEnd, parseEventJson, readSseEvents } from "./sse.ts";
import type { CallTimings, ModelEvent, ModelRequest, Provider } from "./types.ts";
import { type WatchdogOptions, withStallWatchdog } from "./watchdog.ts";

/** The Messages API version this provider speaks (event and block shapes). */
export const ANTHROPIC_VERSION = "2023-06-01";

export type AnthropicOptions = WatchdogOptions;

export function createAnthropicProvider(options: AnthropicOptions = {}): Provider {
  return { stream: (request, timings) => streamMessages(request, timings, options) };
}

async function* streamMessages(
  request: ModelRequest,
  timings: CallTimings | undefined,
  options: AnthropicOptions,
): AsyncGenerator<ModelEvent> {
  const secrets = secretsOf(request.model);
  // Anthropic's error bodies ({"type":"error","error":{"type","message"}}) are read by classifyHttpFailure.
  const response = await postStreaming({
    model: request.model,
    path: "/messages",
    headers: { "x-api-key": request.model.apiKey, "anthropic-version": ANTHROPIC_VERSION },
    body: buildAnthropicRequestBody(request),
    signal: request.signal,
    timings,
  });

  const parser = new AnthropicStreamParser(secrets);
  const events = withStallWatchdog(readSseEvents(response.body!, request.signal), options);
  try {
    while (true) {
      const message = await nextEventOrEnd(events, () => parser.finished, request.signal);
      if (message === undefined) break;
      if (!message.data.trim()) continue; // keep-alive events some gateways send
      yield* parser.push(message.event, parseEventJson(message.data));
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
