// The yield timer's resolution (docs/code-mode.md#differential-suite; code-mode
// §6.12 and §7 "Yield timer"): a request of 10 000 ms or more gets one more
// second, a smaller one does not, and the session's maximum clamps after that.
// These are real 10–11 s timers, run side by side in one test per target.
import { expect, it } from "vitest";
import { observed } from "../support/outcomes.ts";
import { describeTargets } from "../support/scenario.ts";

const FOREVER = "await new Promise(() => {});";
/** Slack for scheduling and the network on top of a timer. */
const SLACK_MS = 800;

describeTargets("the yield timer", ({ open, execute, wait }) => {
  it("yields after 9 999 ms for 9 999, after 11 s for 10 000 or none, and at the session maximum after the grace", {
    timeout: 30_000,
  }, async () => {
    const session = await open();
    const clamped = await open({ maxYieldTimeMs: 10_500 });
    const timed = async (label: string, yieldTimeMs: number | null, on = session) => {
      const sentAt = performance.now();
      const cell = execute(on, FOREVER, { yieldTimeMs });
      await cell.started();
      const startedAt = performance.now();
      const outcome = observed(await cell.outcome(20_000));
      const endedAt = performance.now();
      return { label, outcome, sinceSent: endedAt - sentAt, elapsed: endedAt - startedAt, cell: outcome.cell };
    };
    const waitTimed = async () => {
      const cell = execute(session, FOREVER, { yieldTimeMs: 1 });
      const { cellId } = await cell.started();
      await cell.outcome();
      const sentAt = performance.now();
      const outcome = await wait(session, cellId, 10_000);
      const elapsed = performance.now() - sentAt;
      return { label: "wait 10 000", outcome, sinceSent: elapsed, elapsed, cell: cellId };
    };
    const runs = await Promise.all([
      timed("9 999", 9_999),
      timed("10 000", 10_000),
      timed("none", null),
      timed("clamped", 10_000, clamped),
      waitTimed(),
    ]);
    const expected: Record<string, number> = { "9 999": 9_999, "10 000": 11_000, none: 11_000, clamped: 10_500, "wait 10 000": 11_000 };
    for (const run of runs) {
      expect(run.outcome, run.label).toEqual(expect.objectContaining({ kind: "yielded", items: [] }));
      // Never before its time since the call was sent (the host's timer starts after it arrives), and
      // promptly after it since `started` arrived (the timer starts when the runtime has started the
      // cell, a little after `started` is sent). `started` is no lower bound: on a loaded machine its
      // delivery can lag the timer's start by more than the outcome's does (measured: 56 ms).
      expect(run.sinceSent, run.label).toBeGreaterThanOrEqual(expected[run.label]!);
      expect(run.elapsed, run.label).toBeLessThan(expected[run.label]! + SLACK_MS);
    }
  });
});
