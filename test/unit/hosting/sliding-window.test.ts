// The per-user rolling window that rate-limits model tests.
import { describe, expect, it } from "vitest";
import { SlidingWindow } from "../../../src/hosting/admin/sliding-window.ts";

describe("sliding window", () => {
  it("allows the limit in any window, then says how long until the oldest event ages out", () => {
    const window = new SlidingWindow(2, 60_000);
    expect(window.take("a", 1_000)).toBe(0);
    expect(window.take("a", 2_000)).toBe(0);
    expect(window.take("a", 3_000)).toBe(58_000);
    expect(window.take("b", 3_000)).toBe(0);
    expect(window.take("a", 61_000)).toBe(0);
    expect(window.take("a", 61_500)).toBe(500);
  });
});
