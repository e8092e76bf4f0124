// Tables of one code-mode session object's SQLite (drizzle, durable-sqlite;
// docs/code-mode.md#storage). An object serves one session, but rows carry its id
// so that queries read plainly.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export type CodeModeSessionState = "open" | "closed";

export const codeModeSessions = sqliteTable("code_mode_sessions", {
  sessionId: text("session_id").primaryKey(),
  /** The principal whose scope names the object (src/durable/code-mode-session-object.ts). */
  principal: text("principal").notNull(),
  maxYieldTimeMs: integer("max_yield_time_ms"),
  /** Accepted and not enforced (docs/code-mode.md#limits). */
  maxHeapSizeBytes: integer("max_heap_size_bytes"),
  state: text("state").$type<CodeModeSessionState>().notNull(),
  /** Cell ids taken so far. */
  cellCount: integer("cell_count").notNull().default(0),
  /** The lease is retired unless renewed before this (docs/code-mode.md#leases). */
  leaseExpiresAtMs: integer("lease_expires_at_ms").notNull(),
  createdAtMs: integer("created_at_ms").notNull(),
  closedAtMs: integer("closed_at_ms"),
});

/**
 * The session's stored values (store/load), committed when a cell completes. A value's
 * JSON is kept in chunks, 0, 1, …: a row holds at most 2 MB, and Codex keeps any size.
 */
export const codeModeValues = sqliteTable(
  "code_mode_values",
  {
    sessionId: text("session_id").notNull(),
    key: text("key").notNull(),
    chunk: integer("chunk").notNull().default(0),
    valueJson: text("value_json").notNull(),
  },
  (table) => [primaryKey({ columns: [table.sessionId, table.key, table.chunk] })],
);
