// The audit log in D1 (docs/hosting.md#audit-log), by intent: the insert that rides in
// the batch of the change it records, a refusal recorded alone, a page of entries newest
// first by keyset (at, id), and the retention prune.
import type { BatchItem } from "drizzle-orm/batch";
import { and, desc, eq, getTableColumns, gte, lt, or, type SQL, sql } from "drizzle-orm";
import { type D1Db, newId } from "./db.ts";
import { type AuditActorKind, type AuditOutcome, audit } from "./schema/audit.ts";

/** Every action the log records (docs/hosting.md#audit-log lists them). */
export const AUDIT_ACTIONS = [
  "team.create",
  "team.rename",
  "team.budget",
  "team.cell_cpu",
  "team.sso",
  "team.telemetry",
  "user.add",
  "user.role",
  "user.limits",
  "user.remove",
  "token.issue",
  "token.revoke",
  "token.unlock",
  "credential.create",
  "credential.rotate",
  "credential.delete",
  "model.create",
  "model.update",
  "model.enable",
  "model.disable",
  "model.delete",
  "keys.rewrap",
  "keys.rotate",
  "sso.sign_in",
  "sso.sign_out",
  "connector.login",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditActor {
  kind: AuditActorKind;
  id: string;
  email: string | null;
}

export interface AuditTarget {
  kind: string;
  id: string;
  name?: string | null;
  /** The user the target is or belongs to, so that user sees the entry. */
  userId?: string | null;
}

/** One entry as a route describes it; never a secret in `details`. */
export interface AuditEntry {
  atMs: number;
  actor: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  teamId: string | null;
  outcome: AuditOutcome;
  ip: string | null;
  userAgent: string | null;
  details: Record<string, unknown>;
}

export type AuditRow = typeof audit.$inferSelect;

function rowOf(entry: AuditEntry): AuditRow {
  return {
    id: newId("aud"),
    atMs: entry.atMs,
    actorKind: entry.actor.kind,
    actorId: entry.actor.id,
    actorEmail: entry.actor.email,
    action: entry.action,
    targetKind: entry.target.kind,
    targetId: entry.target.id,
    targetName: entry.target.name ?? null,
    targetUserId: entry.target.userId ?? null,
    teamId: entry.teamId,
    outcome: entry.outcome,
    ip: entry.ip,
    userAgent: entry.userAgent,
    detailsJson: JSON.stringify(entry.details),
  };
}

/** The statement that writes the entries, for the batch of the change they record (which fails or lands with them). */
export function auditInsert(db: D1Db, entries: readonly [AuditEntry, ...AuditEntry[]]): BatchItem<"sqlite"> {
  return db.insert(audit).values(entries.map(rowOf));
}

/**
 * The same, written only when the statement just before it in the batch changed a row
 * (SQLite's changes()), for a change whose own statement may match nothing: a conditional
 * update (the last admin, a name taken, a row deleted meanwhile) records no entry then.
 */
export function auditInsertIfChanged(db: D1Db, entries: readonly [AuditEntry, ...AuditEntry[]]): BatchItem<"sqlite"> {
  const columns = Object.entries(getTableColumns(audit));
  const selects = entries.map((entry) => {
    const row = rowOf(entry);
    const values = sql.join(
      columns.map(([key, column]) => sql.param(row[key as keyof AuditRow], column)),
      sql`, `,
    );
    return sql`SELECT ${values} WHERE changes() > 0`;
  });
  return db.insert(audit).select(sql.join(selects, sql` UNION ALL `));
}

/** A refusal, recorded alone (its write never ran). */
export async function recordAudit(db: D1Db, entries: readonly [AuditEntry, ...AuditEntry[]]): Promise<void> {
  await db.insert(audit).values(entries.map(rowOf)).run();
}

/** Each given field narrows the entries; `visibleTo` is a member's: entries by them or about them. */
export interface AuditFilter {
  teamId?: string;
  actorId?: string;
  action?: string;
  sinceMs?: number;
  untilMs?: number;
  visibleTo?: string;
}

/** Where a page starts: strictly older than this entry. */
export interface AuditCursor {
  atMs: number;
  id: string;
}

/** Up to `limit` entries, newest first. */
export async function auditPage(db: D1Db, filter: AuditFilter, cursor: AuditCursor | undefined, limit: number): Promise<AuditRow[]> {
  const where: (SQL | undefined)[] = [];
  if (filter.teamId !== undefined) where.push(eq(audit.teamId, filter.teamId));
  if (filter.actorId !== undefined) where.push(eq(audit.actorId, filter.actorId));
  if (filter.action !== undefined) where.push(eq(audit.action, filter.action));
  if (filter.sinceMs !== undefined) where.push(gte(audit.atMs, filter.sinceMs));
  if (filter.untilMs !== undefined) where.push(lt(audit.atMs, filter.untilMs));
  if (filter.visibleTo !== undefined) where.push(or(eq(audit.actorId, filter.visibleTo), eq(audit.targetUserId, filter.visibleTo)));
  // A row value comparison, so SQLite walks the (at_ms, id) indexes in order.
  if (cursor) where.push(sql`(${audit.atMs}, ${audit.id}) < (${cursor.atMs}, ${cursor.id})`);
  return db
    .select()
    .from(audit)
    .where(and(...where))
    .orderBy(desc(audit.atMs), desc(audit.id))
    .limit(limit)
    .all();
}

/** Rows deleted per statement, so one prune never holds D1 for long. */
const PRUNE_CHUNK = 1000;

/** Deletes the entries older than `beforeMs`, a chunk at a time; how many it deleted. */
export async function pruneAudit(db: D1Db, beforeMs: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await db
      .delete(audit)
      .where(sql`${audit.id} IN (SELECT ${audit.id} FROM ${audit} WHERE ${audit.atMs} < ${beforeMs} LIMIT ${PRUNE_CHUNK})`)
      .run();
    deleted += result.meta.changes;
    if (result.meta.changes < PRUNE_CHUNK) return deleted;
  }
}
