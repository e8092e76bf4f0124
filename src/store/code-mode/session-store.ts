// The only code that touches a code-mode session object's SQLite; queries named by intent.
import { and, eq } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { codeModeSessions, codeModeValues } from "./schema.ts";

export type CodeModeDb = DrizzleSqliteDODatabase<Record<string, never>>;

export interface NewCodeModeSession {
  sessionId: string;
  principal: string;
  maxYieldTimeMs?: number;
  maxHeapSizeBytes?: number;
  leaseExpiresAtMs: number;
}

export interface LeaseRow {
  sessionId: string;
  leaseExpiresAtMs: number;
}

export class CodeModeStore {
  readonly db: CodeModeDb;

  constructor(db: CodeModeDb) {
    this.db = db;
  }

  openSession(session: NewCodeModeSession): void {
    this.db
      .insert(codeModeSessions)
      .values({
        sessionId: session.sessionId,
        principal: session.principal,
        maxYieldTimeMs: session.maxYieldTimeMs ?? null,
        maxHeapSizeBytes: session.maxHeapSizeBytes ?? null,
        state: "open",
        leaseExpiresAtMs: session.leaseExpiresAtMs,
        createdAtMs: Date.now(),
      })
      .run();
  }

  /** Nobody can reach a closed session's values again: they go with it. */
  closeSession(sessionId: string): void {
    this.db.transaction((tx) => {
      tx.update(codeModeSessions)
        .set({ state: "closed", closedAtMs: Date.now() })
        .where(and(eq(codeModeSessions.sessionId, sessionId), eq(codeModeSessions.state, "open")))
        .run();
      tx.delete(codeModeValues).where(eq(codeModeValues.sessionId, sessionId)).run();
    });
  }

  /** Sessions left open by an earlier life of the object: their lease streams died with it. */
  closeOpenSessions(): void {
    const open = this.db
      .select({ sessionId: codeModeSessions.sessionId })
      .from(codeModeSessions)
      .where(eq(codeModeSessions.state, "open"))
      .all();
    for (const { sessionId } of open) this.closeSession(sessionId);
  }

  /** False when the session is not open. */
  renewLease(sessionId: string, leaseExpiresAtMs: number): boolean {
    const renewed = this.db
      .update(codeModeSessions)
      .set({ leaseExpiresAtMs })
      .where(and(eq(codeModeSessions.sessionId, sessionId), eq(codeModeSessions.state, "open")))
      .returning({ sessionId: codeModeSessions.sessionId })
      .all();
    return renewed.length > 0;
  }

  openLeases(): LeaseRow[] {
    return this.db
      .select({ sessionId: codeModeSessions.sessionId, leaseExpiresAtMs: codeModeSessions.leaseExpiresAtMs })
      .from(codeModeSessions)
      .where(eq(codeModeSessions.state, "open"))
      .all();
  }

  noteCellCount(sessionId: string, cellCount: number): void {
    this.db.update(codeModeSessions).set({ cellCount }).where(eq(codeModeSessions.sessionId, sessionId)).run();
  }

  values(sessionId: string): Record<string, unknown> {
    const rows = this.db.select().from(codeModeValues).where(eq(codeModeValues.sessionId, sessionId)).all();
    return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.valueJson)]));
  }

  /** One transaction: a cell's writes land together or not at all. */
  commitValues(sessionId: string, writes: Record<string, unknown>): void {
    const entries = Object.entries(writes);
    if (entries.length === 0) return;
    this.db.transaction((tx) => {
      for (const [key, value] of entries) {
        const valueJson = JSON.stringify(value);
        tx.insert(codeModeValues)
          .values({ sessionId, key, valueJson })
          .onConflictDoUpdate({ target: [codeModeValues.sessionId, codeModeValues.key], set: { valueJson } })
          .run();
      }
    });
  }
}
