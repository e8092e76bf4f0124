// Team data keys in D1 (teams.wrapped_data_key) for the operator's rewrap after a
// KEK rotation (docs/keys-at-rest.md#rotation): read them all, write back the new ones.
import { and, asc, eq, isNotNull } from "drizzle-orm";
import { type AuditEntry, auditInsert } from "./audit-rows.ts";
import type { D1Db } from "./db.ts";
import { teams } from "./schema/accounts.ts";

export interface WrappedDataKey {
  teamId: string;
  wrapped: string;
}

export async function wrappedDataKeys(db: D1Db): Promise<WrappedDataKey[]> {
  const rows = await db
    .select({ teamId: teams.id, wrapped: teams.wrappedDataKey })
    .from(teams)
    .where(isNotNull(teams.wrappedDataKey))
    .orderBy(asc(teams.id))
    .all();
  return rows.flatMap((row) => (row.wrapped === null ? [] : [{ teamId: row.teamId, wrapped: row.wrapped }]));
}

/**
 * Stores each new wrapping, only where the row still holds the one it replaces: the same data
 * key under another KEK, so a concurrent rewrap or a key created meanwhile is never overwritten.
 * The rewrap's audit entry is written in the same batch (alone when nothing changes).
 */
export async function replaceWrappedDataKeys(
  db: D1Db,
  changes: { teamId: string; from: string; to: string }[],
  nowMs: number,
  audit: [AuditEntry, ...AuditEntry[]],
): Promise<void> {
  const updates = changes.map((change) =>
    db
      .update(teams)
      .set({ wrappedDataKey: change.to, updatedAtMs: nowMs })
      .where(and(eq(teams.id, change.teamId), eq(teams.wrappedDataKey, change.from))),
  );
  await db.batch([auditInsert(db, audit), ...updates]);
}
