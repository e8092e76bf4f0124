// Server-sent events from a fetch response body. The iterator cancels the body
// on return or abort at once, even while a read is pending. The body is read and
// parsed in one loop, not through stream stages (TextDecoderStream, a parser
// TransformStream): each stage cost workerd a stream hop per chunk
// (docs/benchmarks.md#profiles).
import { createParser, type EventSourceMessage } from "eventsource-parser";
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
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let ready: SseEvent[] = [];
  let next = 0;
  let tooLarge = false;
  const parser = createParser({
    maxBufferSize: SSE_EVENT_MAX_CHARS,
    onEvent: (event) => ready.push(event),
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") tooLarge = true;
    },
  });
  let finished = false;
  let bodyDone = false;
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
      while (true) {
        if (signal?.aborted) throw signal.reason;
        if (next < ready.length) return { done: false, value: ready[next++]! };
        ready = [];
        next = 0;
        if (tooLarge) {
          await cancel();
          throw new ProviderError("transient", "provider stream was interrupted");
        }
        if (finished || bodyDone) {
          await cancel();
          return { done: true, value: undefined };
        }
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } catch {
          if (signal?.aborted) throw signal.reason;
          await cancel();
          throw new ProviderError("transient", "provider stream was interrupted");
        }
        if (step.done) {
          bodyDone = true;
          // Whatever the decoder held back (a cut multi-byte character) is fed as the stream would have.
          const rest = decoder.decode();
          if (rest && !finished) parser.feed(rest);
        } else if (!finished) {
          parser.feed(decoder.decode(step.value, { stream: true }));
        }
      }
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
