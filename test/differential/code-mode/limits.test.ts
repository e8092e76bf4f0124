// Session limits (docs/code-mode.md#differential-suite; seed
// sessions_enforce_independent_yield_limits, code-mode §6.11 and §7 "Limits").
import { expect, it } from "vitest";
import { AT_ONCE_MS, pollUntil } from "../support/bounds.ts";
import { completed, live, observed, terminated, text, yielded } from "../support/outcomes.ts";
import { describeTargets } from "../support/scenario.ts";

const FOREVER = "await new Promise(() => {});";

describeTargets("session limits", ({ open, execute, wait, terminate }) => {
  it("clamps each session's yields, explicit waits included, by its own maximum", async () => {
    const limited = await open({ maxYieldTimeMs: 1, maxHeapSizeBytes: 16 * 1024 * 1024 });
    const other = await open({ maxYieldTimeMs: 1_000 });
    expect(observed(await execute(limited, FOREVER, { yieldTimeMs: 60_000 }).outcome(AT_ONCE_MS))).toEqual(yielded("1"));
    expect(await wait(limited, "1", 60_000)).toEqual(live(yielded("1")));
    const timer = `await new Promise((resolve) => setTimeout(resolve, 25)); text("isolated");`;
    expect(observed(await execute(other, timer).outcome())).toEqual(completed("1", [text("isolated")]));
    expect(await terminate(limited, "1")).toEqual(live(terminated("1")));
    // With a 1 ms maximum even this cell may yield before it completes: wait until it has.
    const recovered = execute(limited, `text("recovered");`);
    const outcomes = [observed(await recovered.outcome())];
    await pollUntil(async () => {
      if (outcomes.at(-1)!.kind !== "yielded") return true;
      outcomes.push(await wait(limited, "2", 1));
      return undefined;
    }, "cell 2 to complete");
    expect(outcomes.at(-1)).toEqual(expect.objectContaining({ cell: "2", kind: "completed" }));
    expect(outcomes.flatMap((o) => o.items)).toEqual([text("recovered")]);
  });

  it("accepts any heap size and a yield maximum of 0", async () => {
    const huge = await open({ maxHeapSizeBytes: 2 ** 50 });
    expect(observed(await execute(huge, `text("big");`).outcome())).toEqual(completed("1", [text("big")]));
    const tiny = await open({ maxHeapSizeBytes: 1 });
    expect(observed(await execute(tiny, `text("small");`).outcome())).toEqual(completed("1", [text("small")]));
    const zero = await open({ maxYieldTimeMs: 0 });
    expect(observed(await execute(zero, FOREVER, { yieldTimeMs: 60_000 }).outcome(AT_ONCE_MS))).toEqual(yielded("1"));
  });
});
