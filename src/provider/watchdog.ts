// Inactivity timeout for provider calls: a connection that stays open but
// sends nothing (no headers, or no body bytes) would otherwise hold a run forever.
// Silence before the first event is a first-response timeout, after it a stall:
// the two are reported apart (docs/providers.md#what-every-provider-gets).
import { ProviderError } from "./failure.ts";

/** Reasoning models can think silently for a long while; two minutes of nothing is a dead stream. */
const STALL_TIMEOUT_MS = 120_000;

export interface WatchdogOptions {
  stallTimeoutMs?: number;
}

/**
 * Yields what `source` yields, failing with a transient ProviderError when the source
 * produces nothing for the stall timeout (a first-response timeout when it produced nothing yet). Only time spent waiting on the source counts,
 * not time the consumer spends on a value. The source is closed on every exit.
 */
export async function* withStallWatchdog<T>(source: AsyncIterable<T>, options: WatchdogOptions = {}): AsyncGenerator<T> {
  const timeoutMs = stallTimeoutOf(options);
  const iterator = source[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let exhausted = false;
  let started = false;
  try {
    while (true) {
      const stalled = new Promise<never>((_, reject) => {
        const failure = () => (started ? stallError(timeoutMs) : firstResponseError(timeoutMs, "response headers, then no data"));
        timer = setTimeout(() => reject(failure()), timeoutMs);
      });
      const step = await Promise.race([iterator.next(), stalled]);
      if (timer !== undefined) clearTimeout(timer);
      if (step.done) {
        exhausted = true;
        return;
      }
      started = true;
      yield step.value;
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    // Not awaited: after a stall the source's own next() may still be pending.
    if (!exhausted) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/** The stall timeout in effect: the model's, else the default. */
export function stallTimeoutOf(options: WatchdogOptions = {}): number {
  return options.stallTimeoutMs ?? STALL_TIMEOUT_MS;
}

function stallError(timeoutMs: number): ProviderError {
  return new ProviderError("transient", `provider stream stalled: no data for ${seconds(timeoutMs)} s`);
}

/** The provider took the request (or not even the connection) and sent no response headers. */
export function headersStallError(timeoutMs: number): ProviderError {
  return firstResponseError(timeoutMs, "no response headers");
}

/** Nothing of the answer arrived: the provider may be overloaded or still queueing the request. */
function firstResponseError(timeoutMs: number, what: string): ProviderError {
  return new ProviderError("transient", `provider first-response timeout: ${what} for ${seconds(timeoutMs)} s`);
}

function seconds(ms: number): number {
  return Math.round((ms / 1000) * 10) / 10;
}
