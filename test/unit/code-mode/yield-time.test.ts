// The yield timer's length, as the reference host measures it (docs/code-mode.md#yield-timer).
import { describe, expect, it } from "vitest";
import { DEFAULT_YIELD_TIME_MS, resolveYieldTimeMs } from "../../../src/code-mode/engine/yield-time.ts";

describe("resolveYieldTimeMs", () => {
  it("uses a requested time below 10 000 ms as it is", () => {
    expect(resolveYieldTimeMs(9_999)).toBe(9_999);
    expect(resolveYieldTimeMs(1)).toBe(1);
    expect(resolveYieldTimeMs(0)).toBe(0);
  });

  it("adds a second of grace from 10 000 ms on, also to the default", () => {
    expect(resolveYieldTimeMs(10_000)).toBe(11_000);
    expect(resolveYieldTimeMs(60_000)).toBe(61_000);
    expect(DEFAULT_YIELD_TIME_MS).toBe(10_000);
    expect(resolveYieldTimeMs(undefined)).toBe(11_000);
  });

  it("clamps by the session's maximum after the grace", () => {
    expect(resolveYieldTimeMs(10_000, 10_500)).toBe(10_500);
    expect(resolveYieldTimeMs(60_000, 1)).toBe(1);
    expect(resolveYieldTimeMs(5_000, 0)).toBe(0);
    expect(resolveYieldTimeMs(100, 1_000)).toBe(100);
  });
});
