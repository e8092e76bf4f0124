// Pure rules of one user's run admission: requests_per_minute over a rolling
// 60 s and max_concurrent_runs as leases that expire unless renewed, so a run
// lost to a crash frees its slot on its own (docs/hosting.md#limits).
import { AppError } from "../../core/errors.ts";

const RPM_WINDOW_MS = 60_000;
/** A run's slot is held this long past its last renewal. */
export const LEASE_MS = 120_000;

export interface UserLimits {
  requestsPerMinute: number | null;
  maxConcurrentRuns: number | null;
}

export interface UserWindow {
  /** Start times of admitted runs within the last RPM_WINDOW_MS, oldest first. */
  starts: number[];
  /** Run id → when its slot expires unless renewed. */
  leases: Record<string, number>;
}

export const emptyWindow = (): UserWindow => ({ starts: [], leases: {} });

/** Drops starts out of the window and expired leases. */
function pruned(window: UserWindow, nowMs: number): UserWindow {
  const leases = Object.fromEntries(Object.entries(window.leases).filter(([, until]) => until > nowMs));
  return { starts: window.starts.filter((at) => at > nowMs - RPM_WINDOW_MS), leases };
}

/**
 * Admits a run (or refuses it with `resource_exhausted` naming the limit): the
 * run it replaces, if any, gives up its slot first, since it is being cancelled.
 */
export function admit(window: UserWindow, limits: UserLimits, runId: string, nowMs: number, replaces?: string): UserWindow {
  const current = pruned(window, nowMs);
  if (replaces !== undefined) delete current.leases[replaces];
  delete current.leases[runId];
  const rpm = limits.requestsPerMinute;
  if (rpm !== null && current.starts.length >= rpm) {
    const freesAt = (current.starts[current.starts.length - rpm] ?? nowMs) + RPM_WINDOW_MS;
    const seconds = Math.max(1, Math.ceil((freesAt - nowMs) / 1000));
    throw new AppError(
      "resource_exhausted",
      `requests_per_minute limit of ${rpm} reached: the next run can start in ${seconds} s (at ${new Date(freesAt).toISOString()})`,
    );
  }
  const max = limits.maxConcurrentRuns;
  const running = Object.keys(current.leases).length;
  if (max !== null && running >= max) {
    throw new AppError(
      "resource_exhausted",
      `max_concurrent_runs limit of ${max} reached: ${running} ${running === 1 ? "run is" : "runs are"} in progress; a slot frees when one ends`,
    );
  }
  current.starts.push(nowMs);
  current.leases[runId] = nowMs + LEASE_MS;
  return current;
}

/** Extends a live run's slot; an expired or unknown one is not brought back. */
export function renew(window: UserWindow, runId: string, nowMs: number): UserWindow {
  const current = pruned(window, nowMs);
  if (current.leases[runId] !== undefined) current.leases[runId] = nowMs + LEASE_MS;
  return current;
}

export function release(window: UserWindow, runId: string, nowMs: number): UserWindow {
  const current = pruned(window, nowMs);
  delete current.leases[runId];
  return current;
}
