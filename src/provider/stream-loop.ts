// The stream loop every provider shares: one streaming POST, its SSE events read
// under the stall watchdog and the abort signal, each event's meaning left to the
// provider's StreamMapper.
import { ProviderError } from "./failure.ts";
import { postStreaming, secretsOf } from "./http.ts";
import { forModelVision } from "./images.ts";
import { CallMeter } from "./metering.ts";
import { withinImageBudget } from "./image-budget.ts";
import { readSseEvents, type SseEvent } from "./sse.ts";
import type { CallTimings, ModelConfig, ModelEvent, ModelRequest, Provider } from "./types.ts";
import { type WatchdogOptions, withStallWatchdog } from "./watchdog.ts";

/** What one provider makes of its stream; a new one per call. */
export interface StreamMapper {
  /** ModelEvents for one SSE event (keep-alives never reach it). Throws ProviderError for failure events. */
  push(event: SseEvent): ModelEvent[];
  /** The answer is whole though `done` may not be out yet: a cut or stall now ends the stream instead of failing it. */
  readonly finished: boolean;
  /** `done` was emitted; the loop stops reading without waiting for the close. */
  readonly complete: boolean;
  /** The stream ended: completes the call, or throws when the response was cut short. */
  end(): ModelEvent[];
}

/** How one wire API is called; the loop does the rest. */
export interface WireApi {
  /** Path under the model's base URL, e.g. "/chat/completions". */
  path: string;
  /** Authentication and protocol headers. */
  headers(model: ModelConfig): Record<string, string>;
  body(request: ModelRequest): string;
  /** `secrets` are what must never appear in an error the mapper builds from the stream. */
  mapper(secrets: string[]): StreamMapper;
}

export function createStreamingProvider(wire: WireApi, options: WatchdogOptions): Provider {
  return { stream: (request, timings) => streamCall(wire, request, timings, options) };
}

async function* streamCall(
  wire: WireApi,
  request: ModelRequest,
  timings: CallTimings | undefined,
  options: WatchdogOptions,
): AsyncGenerator<ModelEvent> {
  const secrets = secretsOf(request.model);
  const response = await postStreaming({
    model: request.model,
    path: wire.path,
    headers: wire.headers(request.model),
    body: wire.body(forModelVision(withinImageBudget(request))),
    signal: request.signal,
    timings,
    watchdog: options,
  });

  // Accepted: from here the call counts whatever its end, cancelled, stalled or cut (docs/hosting.md#limits).
  const meter = new CallMeter(request);
  try {
    for await (const event of mappedEvents(wire, response, request, secrets, options)) {
      meter.observe(event);
      yield event;
    }
  } finally {
    if (timings) timings.counted = meter.counted();
  }
}

async function* mappedEvents(
  wire: WireApi,
  response: Response,
  request: ModelRequest,
  secrets: string[],
  options: WatchdogOptions,
): AsyncGenerator<ModelEvent> {
  const mapper = wire.mapper(secrets);
  const events = withStallWatchdog(readSseEvents(response.body!, request.signal), options);
  try {
    while (true) {
      const event = await nextEventOrEnd(events, mapper, request.signal);
      if (event === undefined) break;
      if (!event.data.trim()) continue; // keep-alive events some gateways send
      yield* mapper.push(event);
      if (mapper.complete) return;
    }
  } finally {
    await events.return(undefined);
  }
  yield* mapper.end();
}

/**
 * The next event, or undefined at the end. A transport failure (cut, stall) after
 * the answer is already whole also ends the stream: only trailing events are lost.
 */
async function nextEventOrEnd(events: AsyncIterator<SseEvent>, mapper: StreamMapper, signal: AbortSignal): Promise<SseEvent | undefined> {
  try {
    const step = await events.next();
    return step.done ? undefined : step.value;
  } catch (error) {
    if (mapper.finished && !signal.aborted && error instanceof ProviderError) return undefined;
    throw error;
  }
}
