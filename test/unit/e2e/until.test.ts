// The end-to-end checks' bounded poll (e2e/support/until.ts): its deadline bounds the whole
// wait, a probe that never answers included, and the probe is told when it is up.
import { describe, expect, it } from "vitest";
import { until } from "../../../e2e/support/until.ts";

describe("a bounded poll", () => {
  it("answers with the first probe's answer that is not undefined", async () => {
    let probes = 0;
    const got = await until("the third probe", 5_000, async () => (++probes === 3 ? "ready" : undefined));
    expect(got).toBe("ready");
    expect(probes).toBe(3);
  });

  it("fails at its deadline while a probe is still in flight, and aborts the probe's signal", async () => {
    let seen: AbortSignal | undefined;
    const never = (signal: AbortSignal) => {
      seen = signal;
      return new Promise<undefined>(() => {});
    };
    const started = Date.now();
    await expect(until("a probe that never answers", 200, never)).rejects.toThrow(
      "timed out after 200 ms waiting for a probe that never answers",
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(seen?.aborted).toBe(true);
  });
});
