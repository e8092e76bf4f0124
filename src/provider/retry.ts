// Backoff policy for failed model attempts. The run engine decides whether to
// retry (only before any event of the attempt reached the client); this says how
// long, within a budget of waiting per provider call (docs/providers.md#what-every-provider-gets).
import { isProviderError, ProviderError } from "./failure.ts";

/** First backoff ceiling; doubles per attempt. */
const RETRY_BASE_DELAY_MS = 500;
/** @internal Upper bound of our own backoff, so a run never idles long between attempts. */
export const RETRY_MAX_DELAY_MS = 8_000;
/** Waiting between the attempts of one provider call, all retries together, unless the model sets retry_budget_ms. */
export const RETRY_BUDGET_MS = 60_000;

/** Rate limits and transient failures may succeed later; the rest will fail the same way. */
export function isRetryable(failure: unknown): failure is ProviderError {
  return isProviderError(failure) && (failure.kind === "rate_limit" || failure.kind === "transient");
}

/**
 * @internal Delay before retrying after failed attempt number `attempt` (1 for the first failure):
 * full jitter over an exponential ceiling, but never shorter than the provider's Retry-After.
 */
export function retryDelayMs(attempt: number, failure?: unknown, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const ceiling = Math.min(RETRY_MAX_DELAY_MS, RETRY_BASE_DELAY_MS * 2 ** Math.min(exponent, 30));
  const jittered = Math.floor(random() * ceiling);
  const retryAfter = isProviderError(failure) ? failure.retryAfterMs : undefined;
  if (retryAfter === undefined) return jittered;
  return Math.max(retryAfter, jittered);
}

/** Wait this long and retry, or end the call with `failure` (the budget cannot cover the wait). */
export type RetryPlan = { waitMs: number } | { failure: ProviderError };

/**
 * The wait before retrying after failed attempt number `attempt`, if what is left of the
 * budget covers it; otherwise the failure the call ends with, saying the budget is spent
 * and when the provider said to retry. A Retry-After is never shortened: retrying sooner
 * than the provider asked would only be refused again.
 */
export function planRetry(
  attempt: number,
  failure: ProviderError,
  budgetLeftMs: number,
  now: number = Date.now(),
  random: () => number = Math.random,
): RetryPlan {
  const waitMs = retryDelayMs(attempt, failure, random);
  if (waitMs <= budgetLeftMs) return { waitMs };
  const asked =
    failure.retryAfterMs !== undefined
      ? `the provider said to retry in ${seconds(failure.retryAfterMs)} s (at ${new Date(now + failure.retryAfterMs).toISOString().slice(11, 19)} UTC)`
      : `the next retry would wait ${seconds(waitMs)} s`;
  const message = `${failure.message} — retry budget spent: ${asked}, ${seconds(budgetLeftMs)} s of waiting is left`;
  return {
    failure: new ProviderError(failure.kind, message, {
      ...(failure.status !== undefined && { status: failure.status }),
      ...(failure.retryAfterMs !== undefined && { retryAfterMs: failure.retryAfterMs }),
    }),
  };
}

function seconds(ms: number): number {
  return Math.round(Math.max(0, ms) / 100) / 10;
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
