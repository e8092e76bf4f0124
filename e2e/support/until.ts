// A bounded poll of something outside the process (a `wrangler dev`'s API), for
// what the worker writes after it answered (usage and runs: waitUntil). The other
// process gives no signal to wait on, so this is the one deliberate exception to
// "no sleeps": what it waits for is not an interleaving of this process that a
// deferred promise could gate. A short pause between probes keeps it from
// hammering the server. The deadline bounds the whole wait, a probe in flight too:
// the probe is raced against the time left and given a signal that aborts then.
import { setTimeout as sleep } from "node:timers/promises";

const POLL_INTERVAL_MS = 100;

/**
 * Calls `probe` until it returns something other than undefined, for at most `timeoutMs`; `what`
 * names it in the timeout's error (a function: read then, to show the last answer). `signal`
 * aborts at the deadline, for a probe that can stop its own work (a fetch).
 */
export async function until<T>(
  what: string | (() => string),
  timeoutMs: number,
  probe: (signal: AbortSignal) => Promise<T | undefined>,
): Promise<T> {
  const timedOut = () => new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(timedOut());
      abort.abort();
    }, timeoutMs);
  });
  try {
    for (;;) {
      const running = probe(abort.signal);
      // A probe still running at the deadline may reject later, unobserved.
      running.catch(() => {});
      const got = await Promise.race([running, deadline]);
      if (got !== undefined) return got;
      await Promise.race([sleep(POLL_INTERVAL_MS), deadline]);
    }
  } finally {
    clearTimeout(timer);
  }
}
