// Server-sent events from a fetch response body. The iterator cancels the body
// on return or abort at once, even while a read is pending.
import { type EventSourceMessage, EventSourceParserStream } from "eventsource-parser/stream";
import { ProviderError } from "./failure.ts";

export type SseEvent = EventSourceMessage;

/** The data of the event that ends OpenAI-style streams; not JSON. */
export const DONE_MARKER = "[DONE]";

/** One SSE event larger than this is not a chat chunk; stop instead of buffering without end. */
const SSE_EVENT_MAX_CHARS = 8 * 1024 * 1024;

/**
 * Iterates the events of `body`. When `signal` aborts, the body is cancelled and
 * `next()` rejects with the signal's reason. Read failures become a transient ProviderError
 * (their text may carry the upstream URL).
 */
export function readSseEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncIterableIterator<SseEvent> {
  const reader = body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream({ maxBufferSize: SSE_EVENT_MAX_CHARS }))
    .getReader();
  let finished = false;
  const onAbort = () => void cancel(signal?.reason);

  function cancel(reason?: unknown): Promise<void> {
    if (finished) return Promise.resolve();
    finished = true;
    signal?.removeEventListener("abort", onAbort);
    // A pending read resolves as done; cancellation errors carry nothing we need.
    return reader.cancel(reason).catch(() => undefined);
  }

  signal?.addEventListener("abort", onAbort, { once: true });

  return {
    async next(): Promise<IteratorResult<SseEvent>> {
      if (signal?.aborted) throw signal.reason;
      if (finished) return { done: true, value: undefined };
      let step: ReadableStreamReadResult<SseEvent>;
      try {
        step = await reader.read();
      } catch {
        if (signal?.aborted) throw signal.reason;
        await cancel();
        throw new ProviderError("transient", "provider stream was interrupted");
      }
      if (signal?.aborted) throw signal.reason;
      if (step.done) {
        await cancel();
        return { done: true, value: undefined };
      }
      return { done: false, value: step.value };
    },
    async return(): Promise<IteratorResult<SseEvent>> {
      await cancel();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/** An SSE event's JSON; malformed data is a transient failure (a retry may get a clean stream). */
export function parseEventJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ProviderError("transient", "provider sent a malformed stream event");
  }
}
