// A bounded poll of something outside the process (a `wrangler dev`'s API), for
// what the worker writes after it answered (usage and runs: waitUntil). A short
// pause between probes keeps it from hammering the server; the deadline bounds it.
import { setTimeout as sleep } from "node:timers/promises";

const POLL_INTERVAL_MS = 100;

/** Calls `probe` until it returns something other than undefined, for at most `timeoutMs`; `what` names it in the timeout's error (a function: read then, to show the last answer). */
export async function until<T>(what: string | (() => string), timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`);
    await sleep(POLL_INTERVAL_MS);
  }
}
