// The Usage page's arithmetic (dashboard/src/usage): UTC-day ranges and presets,
// days without usage as zeros, and the cache-hit rate.
import { describe, expect, it } from "vitest";
import { daysOf, presetOf, presetRange, rangeProblems } from "../../../dashboard/src/usage/range.ts";
import type { UsageRow } from "../../../dashboard/src/types.ts";
import { byTokens, cacheHitRate, everyDay, totalOf } from "../../../dashboard/src/usage/rows.ts";

// 2026-03-05T23:30:00Z: late in the UTC day, so a local-time slip would show.
const NOW = Date.parse("2026-03-05T23:30:00Z");

const row = (day: string, input: number, cacheRead: number, cost = 0): UsageRow => ({
  day,
  requests: 1,
  input_tokens: input,
  output_tokens: 10,
  cache_read_tokens: cacheRead,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: cost,
  cells: 0,
  cell_wall_ms: 0,
});

describe("usage ranges", () => {
  it("presets end today (UTC) and include both ends", () => {
    expect(presetRange("month", NOW)).toEqual({ from: "2026-03-01", to: "2026-03-05" });
    expect(presetRange("7d", NOW)).toEqual({ from: "2026-02-27", to: "2026-03-05" });
    expect(daysOf(presetRange("7d", NOW))).toHaveLength(7);
    expect(daysOf(presetRange("30d", NOW))).toHaveLength(30);
  });

  it("recognises a range that equals a preset, and none for another range", () => {
    expect(presetOf({ from: "2026-03-01", to: "2026-03-05" }, NOW)).toBe("month");
    expect(presetOf({ from: "2026-03-02", to: "2026-03-05" }, NOW)).toBeUndefined();
  });

  it("refuses an impossible date, an end before the start and more than 366 days, by field", () => {
    expect(rangeProblems({ from: "2026-02-30", to: "2026-03-05" })).toEqual({ from: "Enter a date (YYYY-MM-DD)." });
    expect(rangeProblems({ from: "", to: "2026-03-05" }).from).toBeDefined();
    expect(rangeProblems({ from: "2026-03-05", to: "2026-03-04" })).toEqual({ to: "The end date is before the start date." });
    expect(rangeProblems({ from: "2025-01-01", to: "2026-01-02" }).to).toMatch(/At most 366 days/);
    expect(rangeProblems({ from: "2025-01-01", to: "2026-01-01" })).toEqual({});
  });
});

describe("usage rows", () => {
  it("fills the days the ledger has no row for with zeros, in order", () => {
    const days = everyDay([row("2026-03-03", 100, 50)], { from: "2026-03-02", to: "2026-03-04" });
    expect(days.map((d) => [d.day, d.input_tokens])).toEqual([
      ["2026-03-02", 0],
      ["2026-03-03", 100],
      ["2026-03-04", 0],
    ]);
  });

  it("the cache-hit rate is cache reads over input tokens, none without input", () => {
    expect(cacheHitRate(row("2026-03-03", 200, 50))).toBe(0.25);
    expect(cacheHitRate(row("2026-03-03", 0, 0))).toBeNull();
    expect(cacheHitRate(totalOf([row("a", 100, 100), row("b", 300, 0)]))).toBe(0.25);
  });

  it("sums rows and orders a breakdown by tokens, biggest first", () => {
    const total = totalOf([row("a", 1, 0, 0.5), row("b", 2, 0, 0.25)]);
    expect(total).toMatchObject({ requests: 2, input_tokens: 3, output_tokens: 20, cost_usd: 0.75 });
    expect(byTokens([row("small", 1, 0), row("big", 500, 0)]).map((r) => r.day)).toEqual(["big", "small"]);
  });
});
