// The clock every limit reads (rpm window, leases, the budget's month), so tests
// move time instead of sleeping a minute (docs/hosting.md#limits).
let now: () => number = Date.now;

export function limitsNow(): number {
  return now();
}

/** @internal Tests move the limits' clock instead of sleeping. */
export function setLimitsClock(clock: () => number): void {
  now = clock;
}
