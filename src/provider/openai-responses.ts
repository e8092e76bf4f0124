// OpenAI Responses streaming provider: one POST, SSE events in, ModelEvents
// out, failures classified, abort honoured at every await. Stateless
// (`store: false`): reasoning comes back encrypted and is replayed by the caller.
import { buildResponsesRequestBody } from "./openai-responses-request.ts";
import { ResponsesStreamParser } from "./openai-responses-stream.ts";
import { postStreaming, secretsOf } from "./http.ts";
import { parseEventJson, readSseEvents } from "./sse.ts";
import type { CallTimings, ModelEvent, ModelRequest, Provider } from "./types.ts";
import { type WatchdogOptions, withStallWatchdog } from "./watchdog.ts";

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
  const secrets = secretsOf(request.model);
  const response = await postStreaming({
    model: request.model,
    path: "/responses",
    headers: { authorization: `Bearer ${request.model.apiKey}` },
    body: buildResponsesRequestBody(request),
    signal: request.signal,
    timings,
  });

  const parser = new ResponsesStreamParser(secrets);
  const events = withStallWatchdog(readSseEvents(response.body!, request.signal), options);
  try {
    for await (const message of events) {
      if (message.data === DONE_MARKER) break;
      if (!message.data.trim()) continue; // keep-alive events some gateways send
      yield* parser.push(parseEventJson(message.data), message.event);
      // response.completed / response.incomplete is the last word; no need to wait for the close.
      if (parser.complete) return;
    }
  } finally {
    await events.return(undefined);
  }
  yield* parser.end();
}
