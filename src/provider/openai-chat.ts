// OpenAI Chat Completions streaming provider: one POST, SSE chunks in,
// ModelEvents out, failures classified, abort honoured at every await.
import { buildChatRequestBody } from "./openai-chat-request.ts";
import { ChatStreamParser } from "./openai-chat-stream.ts";
import { postStreaming, secretsOf } from "./http.ts";
import { nextEventOrEnd, parseEventJson, readSseEvents } from "./sse.ts";
import type { CallTimings, ModelEvent, ModelRequest, Provider } from "./types.ts";
import { type WatchdogOptions, withStallWatchdog } from "./watchdog.ts";

const DONE_MARKER = "[DONE]";

export type OpenAiChatOptions = WatchdogOptions;

export function createOpenAiChatProvider(options: OpenAiChatOptions = {}): Provider {
  return { stream: (request, timings) => streamChat(request, timings, options) };
}

async function* streamChat(
  request: ModelRequest,
  timings: CallTimings | undefined,
  options: OpenAiChatOptions,
): AsyncGenerator<ModelEvent> {
  const secrets = secretsOf(request.model);
  const response = await postStreaming({
    model: request.model,
    path: "/chat/completions",
    headers: { authorization: `Bearer ${request.model.apiKey}` },
    body: buildChatRequestBody(request),
    signal: request.signal,
    timings,
  });

  const parser = new ChatStreamParser(secrets);
  const events = withStallWatchdog(readSseEvents(response.body!, request.signal), options);
  try {
    while (true) {
      const message = await nextEventOrEnd(events, () => parser.finished, request.signal);
      if (message === undefined) break;
      if (message.data === DONE_MARKER) {
        yield* parser.end(true);
        return;
      }
      if (!message.data.trim()) continue; // keep-alive events some gateways send
      yield* parser.push(parseEventJson(message.data));
      if (parser.complete) return;
    }
  } finally {
    await events.return(undefined);
  }
  yield* parser.end(false);
}

/**
 * The next SSE event, or undefined at the end. A transport failure (cut, stall) after
 * finish_reason also ends the stream: the answer is whole, only the usage chunk is lost.
 */
