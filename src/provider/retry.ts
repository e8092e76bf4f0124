// Backoff policy for failed model attempts. The run engine decides whether to
// retry (only before any event of the attempt reached the client); this says how long.
import { isProviderError } from "./failure.ts";

/** First backoff ceiling; doubles per attempt. */
const RETRY_BASE_DELAY_MS = 500;
/** @internal Upper bound of our own backoff, so a run never idles long between attempts. */
export const RETRY_MAX_DELAY_MS = 8_000;
/** @internal A provider's Retry-After is honoured up to here; a longer one is shortened to this. */
export const RETRY_AFTER_MAX_MS = 30_000;

/** Rate limits and transient failures may succeed later; the rest will fail the same way. */
export function isRetryable(failure: unknown): boolean {
  return isProviderError(failure) && (failure.kind === "rate_limit" || failure.kind === "transient");
}

/**
 * Delay before retrying after failed attempt number `attempt` (1 for the first failure):
 * full jitter over an exponential ceiling, but never shorter than the provider's Retry-After.
 */
export function retryDelayMs(attempt: number, failure?: unknown, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const ceiling = Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** Math.min(exponent, 30));
  const jittered = Math.floor(random() * ceiling);
  const retryAfter = isProviderError(failure) ? failure.retryAfterMs : undefined;
  if (retryAfter === undefined) return jittered;
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(retryAfter, jittered));
}

/** Waits `ms`, but rejects with the signal's reason the moment it aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
