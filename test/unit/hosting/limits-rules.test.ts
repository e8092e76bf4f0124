// The pure rules of limits (src/hosting/limits/user-window.ts, team-month.ts): the rpm
// window, concurrency leases, and budget reservations, without objects or clocks.
import { describe, expect, it } from "vitest";
import { AppError, Code } from "../../../src/core/errors.ts";
import {
  monthDays,
  monthOf,
  RESERVATION_MS,
  renewReservation,
  reserve,
  settle,
  type TeamMonth,
} from "../../../src/hosting/limits/team-month.ts";
import { admit, emptyWindow, LEASE_MS, release, renew } from "../../../src/hosting/limits/user-window.ts";

const T = Date.UTC(2031, 0, 31, 23, 59, 0);
const limits = (rpm: number | null, max: number | null) => ({ requestsPerMinute: rpm, maxConcurrentRuns: max });

function refusal(step: () => unknown): string {
  try {
    step();
  } catch (err) {
    if (err instanceof AppError && err.code === Code.ResourceExhausted) return err.message;
    throw err;
  }
  throw new Error("not refused");
}

describe("the user's run window", () => {
  it("counts starts in a rolling 60 s and says when the next run may start", () => {
    let w = admit(emptyWindow(), limits(2, null), "a", T);
    w = release(admit(w, limits(2, null), "b", T + 30_000), "a", T + 30_000);
    expect(refusal(() => admit(w, limits(2, null), "c", T + 59_000))).toContain("can start in 1 s");
    expect(Object.keys(admit(w, limits(2, null), "c", T + 60_001).leases)).toEqual(["b", "c"]);
  });

  it("holds a slot per run until it is released or its lease expires unrenewed", () => {
    let w = admit(emptyWindow(), limits(null, 1), "a", T);
    expect(refusal(() => admit(w, limits(null, 1), "b", T + 1))).toContain("max_concurrent_runs limit of 1");
    w = renew(w, "a", T + LEASE_MS - 1);
    expect(refusal(() => admit(w, limits(null, 1), "b", T + LEASE_MS + 1))).toContain("max_concurrent_runs");
    expect(Object.keys(admit(w, limits(null, 1), "b", T + 2 * LEASE_MS).leases)).toEqual(["b"]);
    expect(Object.keys(admit(release(w, "a", T + 2), limits(null, 1), "b", T + 3).leases)).toEqual(["b"]);
  });

  it("gives the slot of the run being replaced to the run replacing it", () => {
    const w = admit(emptyWindow(), limits(null, 1), "old", T);
    expect(Object.keys(admit(w, limits(null, 1), "new", T + 1, "old").leases)).toEqual(["new"]);
  });
});

describe("the team's month", () => {
  const fresh = (used: number): TeamMonth => ({ month: monthOf(T), used, reservations: {} });

  it("reserves only what is left, so a second call on the same remainder is refused until the first settles", () => {
    const one = reserve(fresh(90), 100, "a", 5_000, T);
    expect(one.reservations.a?.tokens).toBe(10);
    expect(refusal(() => reserve(one, 100, "b", 5_000, T))).toBe("team monthly token budget of 100 tokens is used up");
    const settled = settle(one, "a", 4, T);
    expect(settled).toMatchObject({ used: 94, reservations: {} });
    expect(reserve(settled, 100, "b", 5_000, T).reservations.b?.tokens).toBe(6);
  });

  it("stops counting a reservation whose call never reported back", () => {
    const lost = reserve(fresh(0), 100, "a", 5_000, T);
    expect(reserve(lost, 100, "b", 1, T + 15 * 60_000 + 1).reservations).toEqual({ b: expect.objectContaining({ tokens: 1 }) });
  });

  it("keeps the reservation of a call that renews it past a reservation's life, and brings back none that settled", () => {
    let state = reserve(fresh(0), 100, "long", 5_000, T);
    state = renewReservation(state, "long", T + RESERVATION_MS - 1);
    expect(refusal(() => reserve(state, 100, "other", 1, T + RESERVATION_MS + 1))).toContain("used up");
    const settled = renewReservation(settle(state, "long", 3, T + RESERVATION_MS + 2), "long", T + RESERVATION_MS + 3);
    expect(settled).toMatchObject({ used: 3, reservations: {} });
  });

  it("names months and their ledger days in UTC", () => {
    expect(monthOf(T)).toBe("2031-01");
    expect(monthDays("2031-12")).toEqual({ from: "2031-12-01", until: "2032-01-01" });
  });
});
