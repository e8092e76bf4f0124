// The sums the Usage page shows from GET /api/v1/usage (docs/hosting.md#usage-api;
// its shapes are in ../types.ts): days without usage become zeros, the cache-hit
// rate is cache-read tokens over input tokens (input counts the whole prompt).
import type { UsageFigures, UsageRow } from "../types.ts";
import { type DayRange, daysOf } from "./range.ts";

const ZERO: UsageFigures = {
  requests: 0,
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0,
  cells: 0,
  cell_wall_ms: 0,
};

/** Cache-read share of the input tokens; null when there was no input. */
export function cacheHitRate(f: Pick<UsageFigures, "input_tokens" | "cache_read_tokens">): number | null {
  return f.input_tokens > 0 ? f.cache_read_tokens / f.input_tokens : null;
}

export function totalOf(rows: UsageFigures[]): UsageFigures {
  return rows.reduce<UsageFigures>(
    (sum, r) => ({
      requests: sum.requests + r.requests,
      input_tokens: sum.input_tokens + r.input_tokens,
      output_tokens: sum.output_tokens + r.output_tokens,
      cache_read_tokens: sum.cache_read_tokens + r.cache_read_tokens,
      cache_write_tokens: sum.cache_write_tokens + r.cache_write_tokens,
      reasoning_tokens: sum.reasoning_tokens + r.reasoning_tokens,
      cost_usd: sum.cost_usd + r.cost_usd,
      cells: sum.cells + r.cells,
      cell_wall_ms: sum.cell_wall_ms + r.cell_wall_ms,
    }),
    ZERO,
  );
}

/** One row per day of the range, in order; a day the ledger has no row for is all zeros. */
export function everyDay(rows: UsageRow[], range: DayRange): (UsageFigures & { day: string })[] {
  const byDay = new Map(rows.flatMap((r) => (r.day ? [[r.day, r] as const] : [])));
  return daysOf(range).map((day) => ({ ...ZERO, ...byDay.get(day), day }));
}

/** Most tokens first: the rows people look for are the big ones. */
export function byTokens<T extends UsageFigures>(rows: T[]): T[] {
  return [...rows].sort((a, b) => b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens));
}
