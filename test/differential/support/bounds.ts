// Every wait in the differential suite is bounded (no sleeps): a step that
// does not happen fails its test with what it was waiting for.
import { withTimeout } from "../../support/deferred.ts";

/** A step that should happen promptly on either target. */
const STEP_MS = 10_000;
/** Upper bound for "at once" (a rejection that must not wait for a timer). */
export const AT_ONCE_MS = 2_000;

export function bounded<T>(promise: Promise<T>, what: string, ms = STEP_MS): Promise<T> {
  return withTimeout(promise, ms, what);
}

/**
 * Polls `attempt` until it returns a value (not undefined), at most `ms`; for
 * effects the wire gives no event for (a dropped lease retiring its session).
 * Each attempt is awaited before the next, so it is not a busy loop.
 */
export async function pollUntil<T>(attempt: () => Promise<T | undefined>, what: string, ms = STEP_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms polling for ${what}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
