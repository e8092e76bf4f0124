// Awaiting work on behalf of a caller who may stop waiting: a handler suspended at an
// await cannot be interrupted by its stream's cancellation, so it races the signal.
// The work itself is left to settle. Shared by the host and code mode in Cursor runs.

export const ABORTED = Symbol("aborted");

/** The work's outcome, or ABORTED as soon as the signal fires. */
export function orAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The work's outcome, or a rejection with the signal's reason as soon as it fires. */
export async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  const outcome = await orAborted(work, signal);
  if (outcome === ABORTED) throw signal.reason;
  return outcome;
}
