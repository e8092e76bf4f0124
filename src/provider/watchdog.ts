// Inactivity timeout for provider streams: a connection that stays open but
// sends nothing would otherwise hold a run forever.
import { ProviderError } from "./failure.ts";

/** Reasoning models can think silently for a long while; two minutes of nothing is a dead stream. */
const STALL_TIMEOUT_MS = 120_000;

export interface WatchdogOptions {
  stallTimeoutMs?: number;
}

/**
 * Yields what `source` yields, failing with a transient ProviderError when the source
 * produces nothing for the stall timeout. Only time spent waiting on the source counts,
 * not time the consumer spends on a value. The source is closed on every exit.
 */
export async function* withStallWatchdog<T>(source: AsyncIterable<T>, options: WatchdogOptions = {}): AsyncGenerator<T> {
  const timeoutMs = options.stallTimeoutMs ?? STALL_TIMEOUT_MS;
  const iterator = source[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let exhausted = false;
  try {
    while (true) {
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(stallError(timeoutMs)), timeoutMs);
      });
      const step = await Promise.race([iterator.next(), stalled]);
      if (timer !== undefined) clearTimeout(timer);
      if (step.done) {
        exhausted = true;
        return;
      }
      yield step.value;
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    // Not awaited: after a stall the source's own next() may still be pending.
    if (!exhausted) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

function stallError(timeoutMs: number): ProviderError {
  const seconds = Math.round((timeoutMs / 1000) * 10) / 10;
  return new ProviderError("transient", `provider stream stalled: no data for ${seconds} s`);
}
