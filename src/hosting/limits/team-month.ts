// Pure rules of a team's monthly token budget: the month's counter (input +
// output tokens each provider call counts) and a reservation per call in flight,
// settled when the call ends, whichever way (docs/hosting.md#limits).
import { AppError } from "../../core/errors.ts";

/** A reservation whose call never reports back (its object died) stops counting after this; a live call renews it. */
export const RESERVATION_MS = 15 * 60_000;

export interface TeamMonth {
  /** `YYYY-MM`, UTC. */
  month: string;
  used: number;
  /** Call id → reserved tokens and when the reservation lapses. */
  reservations: Record<string, { tokens: number; untilMs: number }>;
}

export function monthOf(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 7);
}

/** The first day of the month and of the next one, as the ledger's `YYYY-MM-DD` days. */
export function monthDays(month: string): { from: string; until: string } {
  const [year, mon] = month.split("-").map(Number) as [number, number];
  const next = new Date(Date.UTC(year, mon, 1)).toISOString().slice(0, 10);
  return { from: `${month}-01`, until: next };
}

function budgetUsedUp(budget: number): AppError {
  return new AppError("resource_exhausted", `team monthly token budget of ${budget} tokens is used up`);
}

function live(state: TeamMonth, nowMs: number): TeamMonth {
  const reservations = Object.fromEntries(Object.entries(state.reservations).filter(([, r]) => r.untilMs > nowMs));
  return { ...state, reservations };
}

/** The tokens reserved by calls still in flight (lapsed reservations no longer count). */
export function reservedTokens(state: TeamMonth, nowMs: number): number {
  return Object.values(live(state, nowMs).reservations).reduce((sum, r) => sum + r.tokens, 0);
}

/**
 * Reserves up to `estimate` tokens for one call, or refuses it when the used and
 * reserved tokens already reach the budget. Near the end of a budget a call gets
 * only what is left, so concurrent calls cannot all pass on the same remainder.
 */
export function reserve(state: TeamMonth, budget: number, callId: string, estimate: number, nowMs: number): TeamMonth {
  const current = live(state, nowMs);
  const left = budget - current.used - reservedTokens(current, nowMs);
  if (left <= 0) throw budgetUsedUp(budget);
  current.reservations[callId] = { tokens: Math.max(1, Math.min(left, Math.ceil(estimate))), untilMs: nowMs + RESERVATION_MS };
  return current;
}

/** A call still streaming keeps its reservation for another RESERVATION_MS; one already lapsed or settled is not brought back. */
export function renewReservation(state: TeamMonth, callId: string, nowMs: number): TeamMonth {
  const current = live(state, nowMs);
  const held = current.reservations[callId];
  if (held) current.reservations[callId] = { ...held, untilMs: nowMs + RESERVATION_MS };
  return current;
}

/** The tokens the call counts (docs/hosting.md#limits: reported, else estimated; 0 only when refused before 2xx) replace its reservation. */
export function settle(state: TeamMonth, callId: string, tokens: number, nowMs: number): TeamMonth {
  const current = live(state, nowMs);
  delete current.reservations[callId];
  return { ...current, used: current.used + Math.max(0, tokens) };
}
