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
  /** Open code-mode session id → when its slot expires unless renewed (absent in windows stored before). */
  sessions?: Record<string, number>;
}

/** Code-mode sessions one user may hold open at once (docs/hosting.md#limits). */
const MAX_OPEN_SESSIONS = 8;
/** A session's slot is held this long past its last renewal (the worker renews it with the lease, every few seconds). */
const SESSION_LEASE_MS = 30_000;

export const emptyWindow = (): UserWindow => ({ starts: [], leases: {}, sessions: {} });

/** Drops starts out of the window and expired leases. */
function pruned(window: UserWindow, nowMs: number): UserWindow {
  const live = (slots: Record<string, number>) => Object.fromEntries(Object.entries(slots).filter(([, until]) => until > nowMs));
  return {
    starts: window.starts.filter((at) => at > nowMs - RPM_WINDOW_MS),
    leases: live(window.leases),
    sessions: live(window.sessions ?? {}),
  };
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

/** Holds a slot for an open code-mode session, or refuses it once MAX_OPEN_SESSIONS are open. */
export function openSession(window: UserWindow, sessionId: string, nowMs: number): UserWindow {
  const current = pruned(window, nowMs);
  const sessions = current.sessions ?? {};
  const open = Object.keys(sessions).length;
  if (open >= MAX_OPEN_SESSIONS) {
    throw new AppError(
      "resource_exhausted",
      `at most ${MAX_OPEN_SESSIONS} code-mode sessions may be open at once, and ${open} are; close one (CloseSession) first`,
    );
  }
  sessions[sessionId] = nowMs + SESSION_LEASE_MS;
  return { ...current, sessions };
}

export function renewSession(window: UserWindow, sessionId: string, nowMs: number): UserWindow {
  const current = pruned(window, nowMs);
  const sessions = current.sessions ?? {};
  if (sessions[sessionId] !== undefined) sessions[sessionId] = nowMs + SESSION_LEASE_MS;
  return { ...current, sessions };
}

export function closeSession(window: UserWindow, sessionId: string, nowMs: number): UserWindow {
  const current = pruned(window, nowMs);
  delete current.sessions?.[sessionId];
  return current;
}
