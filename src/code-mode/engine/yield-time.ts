// How long one observation of a cell lasts before it yields (docs/code-mode.md#yield-timer).
// Codex adds a second of grace to long requests, then clamps by the session's limit; the
// clamp bounds explicit Waits too. Observed on the reference: 9 999 → 9.999 s,
// 10 000 → 11 s, no value → 11 s, max_yield_time_ms 0 → at once.

/** A yield time not given (a wait in a Cursor run passes it on explicitly). */
export const DEFAULT_YIELD_TIME_MS = 10_000;
const GRACE_FROM_MS = 10_000;
const GRACE_MS = 1_000;

export function resolveYieldTimeMs(requested: number | undefined, maxYieldTimeMs?: number): number {
  const base = requested ?? DEFAULT_YIELD_TIME_MS;
  const withGrace = base >= GRACE_FROM_MS ? base + GRACE_MS : base;
  return maxYieldTimeMs === undefined ? withGrace : Math.min(withGrace, maxYieldTimeMs);
}
