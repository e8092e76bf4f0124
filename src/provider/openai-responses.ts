// OpenAI Responses streaming provider: one POST, SSE events in, ModelEvents
// out, failures classified, abort honoured at every await. Stateless
// (`store: false`): reasoning comes back encrypted and is replayed by the caller.
import { classifyHttpFailure, ProviderError, providerErrorFromNetwork } from "./failure.ts";
import { buildResponsesRequestBody } from "./openai-responses-request.ts";
import { ResponsesStreamParser } from "./openai-responses-stream.ts";
import { readSseEvents } from "./sse.ts";
import type { CallTimings, ModelEvent, ModelRequest, Provider } from "./types.ts";
import { type WatchdogOptions, withStallWatchdog } from "./watchdog.ts";

/** Enough of an error body to find the provider's message; the rest is discarded. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;
/** Not part of the Responses API, but some compatible gateways end with it. */
const DONE_MARKER = "[DONE]";

export type OpenAiResponsesOptions = WatchdogOptions;

export function createOpenAiResponsesProvider(options: OpenAiResponsesOptions = {}): Provider {
  return { stream: (request, timings) => streamResponses(request, timings, options) };
}

async function* streamResponses(
  request: ModelRequest,
  timings: CallTimings | undefined,
  options: OpenAiResponsesOptions,
): AsyncGenerator<ModelEvent> {
  const secrets = [request.model.apiKey];
  const response = await send(request, timings);
  if (!response.ok) throw await failureFromResponse(response, request.signal, secrets);
  if (!response.body) throw new ProviderError("transient", "provider returned an empty response");

  const parser = new ResponsesStreamParser(secrets);
  const events = withStallWatchdog(readSseEvents(response.body, request.signal), options);
  try {
    for await (const message of events) {
      if (message.data === DONE_MARKER) break;
      if (!message.data.trim()) continue; // keep-alive events some gateways send
      yield* parser.push(parseJson(message.data), message.event);
      // response.completed / response.incomplete is the last word; no need to wait for the close.
      if (parser.complete) return;
    }
  } finally {
    await events.return(undefined);
  }
  yield* parser.end();
}

async function send(request: ModelRequest, timings: CallTimings | undefined): Promise<Response> {
  const { model, signal } = request;
  const url = `${model.baseUrl.replace(/\/+$/, "")}/responses`;
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
      body: buildResponsesRequestBody(request),
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
