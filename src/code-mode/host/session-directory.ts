// The sessions one session object serves (one: its name holds the session id) and
// their leases (docs/code-mode.md#leases): the worker renews a lease while it forwards
// its stream; the object's alarm retires a session not renewed for LEASE_TTL_MS. The
// object's storage exists only while it serves a session: tables are made by the
// OpenSession, and everything goes (alarm included) once no session is left, because a
// retired session's values can never be reached again.
import type { StoppedCell } from "./cell-trace.ts";
import { CodeModeSession } from "../engine/session.ts";
import type { CellRunner } from "../engine/runner.ts";
import type { SessionLimits } from "../engine/engine-types.ts";
import type { HostSessionStore } from "../store/host-session-store.ts";
import { requireUuid } from "./ids.ts";
import { LEASE_TTL_MS } from "./lease.ts";
import { type CellAdmission, ServedSession, unknownSession } from "./served-session.ts";

export interface SessionDirectoryOptions {
  store: HostSessionStore;
  runner: CellRunner;
  /** The object's alarm fires at this time (a later call replaces an earlier one). */
  scheduleAlarm(atMs: number): void;
  /** Makes the store's tables (if they are not there). */
  prepareStorage(): Promise<void>;
  /** Deletes the object's storage and alarm: its last session was retired. */
  clearStorage(): Promise<void>;
  /** The limits of the session's hosted user (its team given), none for "local". */
  admissionFor?(principal: string, teamId: string | undefined): CellAdmission | undefined;
  /** Cells on another CPU limit than the runner's, for a team that set one. */
  runnerWithCpu?(cpuMs: number): CellRunner;
  /** A cell of the session's principal stopped: for usage and its span. */
  recordCell?(cell: StoppedCell): void;
}

export class SessionDirectory {
  readonly #sessions = new Map<string, ServedSession>();
  readonly #options: SessionDirectoryOptions;

  constructor(options: SessionDirectoryOptions) {
    this.#options = options;
  }

  /** A new session under an id the worker chose (a fresh UUID). */
  async open(
    sessionId: string,
    principal: string,
    limits: SessionLimits,
    { teamId, cellCpuMs }: { teamId?: string | undefined; cellCpuMs?: number | undefined } = {},
  ): Promise<ServedSession> {
    const { store } = this.#options;
    const runner = cellCpuMs !== undefined && this.#options.runnerWithCpu ? this.#options.runnerWithCpu(cellCpuMs) : this.#options.runner;
    await this.#options.prepareStorage();
    const leaseExpiresAtMs = Date.now() + LEASE_TTL_MS;
    store.openSession({ sessionId, principal, ...limits, leaseExpiresAtMs });
    // The engine reports a stopped cell to the session made just after it.
    let served: ServedSession | undefined;
    const engine = new CodeModeSession({
      runner,
      limits,
      values: { snapshot: () => store.values(sessionId), commit: (writes) => store.commitValues(sessionId, writes) },
      onCellStopped: (cellId) => served?.cellStopped(cellId),
    });
    const admission = this.#options.admissionFor?.(principal, teamId);
    const session = new ServedSession({
      sessionId,
      engine,
      ...(admission && { admission }),
      onCellUsage: (cell) => this.#options.recordCell?.({ ...cell, sessionId, principal, teamId }),
      onRetire: () => {
        this.#sessions.delete(sessionId);
        store.closeSession(sessionId);
        return this.#sessions.size === 0 ? this.#options.clearStorage() : Promise.resolve();
      },
      onCell: (cellId) => store.noteCellCount(sessionId, Number(cellId)),
    });
    served = session;
    this.#sessions.set(sessionId, session);
    this.#options.scheduleAlarm(leaseExpiresAtMs);
    return session;
  }

  /** The open session a request names; not_found (with the id as given) otherwise. */
  find(rawSessionId: string): ServedSession {
    const session = this.#sessions.get(requireUuid("session", rawSessionId));
    if (!session?.open) throw unknownSession(rawSessionId);
    return session;
  }

  /** False when the session is not open here (retired, or never opened in this life of the object). */
  renewLease(sessionId: string): boolean {
    if (!this.#sessions.get(sessionId)?.open) return false;
    return this.#options.store.renewLease(sessionId, Date.now() + LEASE_TTL_MS);
  }

  /** The alarm: retires every session whose lease expired, and re-arms for the others. */
  async expireLeases(): Promise<void> {
    // No session, no tables (a stale alarm of a cleared object).
    if (this.#sessions.size === 0) return;
    const now = Date.now();
    let next: number | undefined;
    const expired: Promise<void>[] = [];
    for (const lease of this.#options.store.openLeases()) {
      if (lease.leaseExpiresAtMs > now) {
        next = Math.min(next ?? lease.leaseExpiresAtMs, lease.leaseExpiresAtMs);
        continue;
      }
      const session = this.#sessions.get(lease.sessionId);
      if (session) expired.push(session.retire());
      else this.#options.store.closeSession(lease.sessionId);
    }
    if (next !== undefined) this.#options.scheduleAlarm(next);
    await Promise.all(expired);
  }
}
