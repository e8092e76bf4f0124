// OpenAI Chat Completions streaming provider: one POST, SSE chunks in,
// ModelEvents out, failures classified, abort honoured at every await.
import { classifyHttpFailure, isProviderError, ProviderError, providerErrorFromNetwork } from "./failure.ts";
import { buildChatRequestBody } from "./openai-chat-request.ts";
import { ChatStreamParser } from "./openai-chat-stream.ts";
import { readSseEvents, type SseEvent } from "./sse.ts";
import type { CallTimings, ModelEvent, ModelRequest, Provider } from "./types.ts";
import { type WatchdogOptions, withStallWatchdog } from "./watchdog.ts";

/** Enough of an error body to find the provider's message; the rest is discarded. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;
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
  const secrets = [request.model.apiKey];
  const response = await send(request, timings);
  if (!response.ok) throw await failureFromResponse(response, request.signal, secrets);
  if (!response.body) throw new ProviderError("transient", "provider returned an empty response");

  const parser = new ChatStreamParser(secrets);
  const events = withStallWatchdog(readSseEvents(response.body, request.signal), options);
  try {
    while (true) {
      const message = await nextOrEnd(events, parser, request.signal);
      if (message === undefined) break;
      if (message.data === DONE_MARKER) {
        yield* parser.end(true);
        return;
      }
      if (!message.data.trim()) continue; // keep-alive events some gateways send
      yield* parser.push(parseJson(message.data));
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
async function nextOrEnd(
  events: AsyncGenerator<SseEvent>,
  parser: ChatStreamParser,
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
  const url = `${model.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const sentAt = Date.now();
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${model.apiKey}`,
        "content-type": "application/json",
        accept: "text/event-stream",
        ...model.headers,
      },
      body: buildChatRequestBody(request),
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
    throw new ProviderError("transient", "provider sent a malformed stream chunk");
  }
}
