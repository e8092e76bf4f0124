// A provider response body in chunks, read the way src/provider/stream-loop.ts
// reads it: the real SSE reader (src/provider/sse.ts), keep-alive events skipped,
// each event through the provider's StreamMapper, `end()` at the close. Only the
// HTTP call and the stall watchdog are left out (no network in a fuzz case).
import { readSseEvents } from "../../../src/provider/sse.ts";
import type { StreamMapper } from "../../../src/provider/stream-loop.ts";
import type { ModelEvent } from "../../../src/provider/types.ts";

export type StreamOutcome = { events: ModelEvent[]; error?: undefined } | { events: ModelEvent[]; error: unknown };

export async function readModelStream(mapper: StreamMapper, chunks: Uint8Array[]): Promise<StreamOutcome> {
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
  const events: ModelEvent[] = [];
  const sse = readSseEvents(body);
  try {
    for (;;) {
      const step = await sse.next();
      if (step.done) break;
      if (!step.value.data.trim()) continue;
      events.push(...mapper.push(step.value));
      if (mapper.complete) return { events };
    }
    events.push(...mapper.end());
    return { events };
  } catch (error) {
    return { events, error };
  } finally {
    await sse.return?.();
  }
}
