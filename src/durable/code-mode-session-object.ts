// One Durable Object per code-mode session, named by principal and session id
// (src/core/object-names.ts, docs/code-mode.md#service). Thin: it owns the storage's
// life and serves CodeModeHost over Connect to the worker; the session lives in
// src/code-mode/host, its cells in src/code-mode/engine. Storage exists only while the
// session is open: a session never outlives the object's life (its lease stream dies
// with it), so whatever an earlier life left, and a retired session, is deleted.
import { createContextValues } from "@connectrpc/connect";
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/code-mode/migrations.js";
import { cellRunnerFor } from "../code-mode/engine/cell-runners.ts";
import { type CodeModeFetchHandler, codeModeFetchHandler } from "../code-mode/host/fetch-handler.ts";
import { SessionDirectory } from "../code-mode/host/session-directory.ts";
import { sessionService } from "../code-mode/host/session-service.ts";
import type { AppEnv } from "../core/env.ts";
import { errorKind } from "../core/log-safe.ts";
import { HostSessionStore } from "../code-mode/store/host-session-store.ts";
import { limitsFor } from "../hosting/limits/principal-limits.ts";
import { recordCellUsage } from "../hosting/store/usage-rows.ts";
import { telemetryTargetsFor } from "../hosting/config/telemetry-targets.ts";
import { traceCell } from "../code-mode/host/cell-trace.ts";

export class CodeModeSessionObject extends DurableObject<AppEnv> {
  readonly #store: HostSessionStore;
  readonly #directory: SessionDirectory;
  readonly #serve: CodeModeFetchHandler;
  /** The store's tables exist (made by OpenSession, gone with the storage). */
  #migrated = false;
  #initError: unknown;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.#store = new HostSessionStore(drizzle(ctx.storage, { logger: false }));
    void ctx.blockConcurrencyWhile(async () => {
      // Errors are kept, not thrown: a throw here would break the input gate.
      try {
        // An earlier life's session lost its lease stream with it: nothing in storage can be reached.
        if (this.#hasTables()) await this.#clearStorage();
      } catch (err) {
        this.#initError = err;
        console.error("byok-edge: code-mode storage failed to open:", errorKind(err));
      }
    });
    this.#directory = new SessionDirectory({
      store: this.#store,
      runner: cellRunnerFor(env),
      scheduleAlarm: (atMs) => {
        // Not awaited (the directory's calls are synchronous); a failure must not be an unhandled rejection.
        ctx.storage.setAlarm(atMs).catch((err: unknown) => {
          console.error("byok-edge: a code-mode lease alarm could not be set:", errorKind(err));
        });
      },
      prepareStorage: async () => {
        if (this.#migrated) return;
        await migrate(this.#store.db, migrations);
        this.#migrated = true;
      },
      clearStorage: () => this.#clearStorage(),
      admissionFor: (principal, teamId) => limitsFor(env, { id: principal, teamId: teamId ?? null }),
      runnerWithCpu: (cpuMs) => cellRunnerFor(env, cpuMs),
      recordCell: (cell) => {
        ctx.waitUntil(recordCellUsage(env.DB, { principal: cell.principal, teamId: cell.teamId ?? null, wallMs: cell.wallMs }));
        ctx.waitUntil(
          telemetryTargetsFor(env, cell.teamId ?? null)
            .then((targets) => traceCell(cell, targets))
            .catch(() => {}), // the targets are read best effort too: a cell never fails for its span
        );
      },
    });
    this.#serve = codeModeFetchHandler(sessionService(this.#directory), { grpcWeb: false });
  }

  /** CodeModeHost over Connect, from the worker only. */
  override async fetch(request: Request): Promise<Response> {
    this.#ready();
    return (await this.#serve(request, createContextValues())) ?? new Response("not a CodeModeHost method", { status: 404 });
  }

  /** The worker still forwards the session's lease stream; false when the session is gone. */
  renewLease(sessionId: string): boolean {
    this.#ready();
    return this.#directory.renewLease(sessionId);
  }

  /** Retires sessions whose lease was not renewed in time (docs/code-mode.md#leases). */
  override async alarm(): Promise<void> {
    this.#ready();
    await this.#directory.expireLeases();
  }

  #hasTables(): boolean {
    return (
      this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'code_mode_sessions'").toArray().length > 0
    );
  }

  async #clearStorage(): Promise<void> {
    this.#migrated = false;
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  /** Checked on every call, outside blockConcurrencyWhile (a throw inside it would break the input gate). */
  #ready(): void {
    if (this.#initError !== undefined) this.ctx.abort("code-mode storage failed to open");
  }
}
