// The only code that touches a code-mode session object's SQLite; queries named by intent.
import { and, asc, eq } from "drizzle-orm";
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

export class HostSessionStore {
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
    const rows = this.db
      .select()
      .from(codeModeValues)
      .where(eq(codeModeValues.sessionId, sessionId))
      .orderBy(asc(codeModeValues.key), asc(codeModeValues.chunk))
      .all();
    const json = new Map<string, string[]>();
    for (const row of rows) {
      const chunks = json.get(row.key);
      if (chunks) chunks.push(row.valueJson);
      else json.set(row.key, [row.valueJson]);
    }
    return Object.fromEntries([...json].map(([key, chunks]) => [key, JSON.parse(chunks.join(""))]));
  }

  /** One transaction: a cell's writes land together or not at all. */
  commitValues(sessionId: string, writes: Record<string, unknown>): void {
    const entries = Object.entries(writes);
    if (entries.length === 0) return;
    this.db.transaction((tx) => {
      for (const [key, value] of entries) {
        tx.delete(codeModeValues)
          .where(and(eq(codeModeValues.sessionId, sessionId), eq(codeModeValues.key, key)))
          .run();
        const chunks = jsonChunks(JSON.stringify(value));
        for (const [chunk, valueJson] of chunks.entries()) tx.insert(codeModeValues).values({ sessionId, key, chunk, valueJson }).run();
      }
    });
  }
}

/**
 * At most this many UTF-16 code units per row: at most 3 UTF-8 bytes each, so a chunk
 * stays under the 2 MB a Durable Object's SQLite row may hold.
 */
const CHUNK_CODE_UNITS = 600_000;

/** A value's JSON in chunks, never cut inside a surrogate pair (the halves would not survive UTF-8). */
function jsonChunks(json: string): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (start < json.length) {
    let end = Math.min(start + CHUNK_CODE_UNITS, json.length);
    const last = json.charCodeAt(end - 1);
    if (end < json.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    chunks.push(json.slice(start, end));
    start = end;
  }
  return chunks;
}
