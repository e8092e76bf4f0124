// Team data keys in D1 (teams.wrapped_data_key) and the rows sealed with them: for the
// operator's rewrap after a KEK rotation and for the data-key rotation, which re-encrypts
// every stored secret of a team (docs/keys-at-rest.md#rotating-the-data-keys).
import { and, asc, eq, isNotNull, isNull, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type AuditEntry, auditInsert } from "./audit-rows.ts";
import type { D1Db } from "./db.ts";
import { teams } from "./schema/accounts.ts";
import { credentials, models } from "./schema/providers.ts";

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

/** What a write sealed under a data key answers when the team no longer holds that key: seal again with the current one. */
export const STALE_DATA_KEY = "stale-data-key";

/** True while the team still holds `wrapped` as its data key: the condition of every sealed write. */
export function stillSealedUnder(teamId: string, wrapped: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${teams} WHERE ${teams.id} = ${teamId} AND ${teams.wrappedDataKey} = ${wrapped})`;
}

/** A team's data key, and the one a rotation is replacing (null when none is under way). */
export interface TeamDataKeys {
  teamId: string;
  wrapped: string | null;
  previous: string | null;
}

export async function teamDataKeys(db: D1Db): Promise<TeamDataKeys[]> {
  return db
    .select({ teamId: teams.id, wrapped: teams.wrappedDataKey, previous: teams.previousWrappedDataKey })
    .from(teams)
    .where(or(isNotNull(teams.wrappedDataKey), isNotNull(teams.previousWrappedDataKey)))
    .orderBy(asc(teams.id))
    .all();
}

/**
 * Starts a team's rotation: the new key becomes the one every write seals with, the old one is
 * kept as previous so rows not yet re-encrypted still open. False when the team's key changed
 * since it was read, or a rotation is already under way.
 */
export async function beginDataKeyRotation(db: D1Db, teamId: string, from: string, to: string, nowMs: number): Promise<boolean> {
  const result = await db
    .update(teams)
    .set({ wrappedDataKey: to, previousWrappedDataKey: from, updatedAtMs: nowMs })
    .where(and(eq(teams.id, teamId), eq(teams.wrappedDataKey, from), isNull(teams.previousWrappedDataKey)))
    .run();
  return result.meta.changes === 1;
}

/** Ends a team's rotation: the previous key is dropped, and with it everything still sealed by it. */
export async function endDataKeyRotation(db: D1Db, teamId: string, previous: string, nowMs: number): Promise<void> {
  await db
    .update(teams)
    .set({ previousWrappedDataKey: null, updatedAtMs: nowMs })
    .where(and(eq(teams.id, teamId), eq(teams.previousWrappedDataKey, previous)))
    .run();
}

/** One row's secrets, as stored: what a rotation re-encrypts. */
export interface SealedRow {
  /** teams: a team's OTLP headers (docs/telemetry.md#export). */
  table: "credentials" | "models" | "teams";
  id: string;
  /** Credentials only: the key envelope, or "" for none. */
  encryptedKey: string | null;
  sealedHeaders: string | null;
  headerNamesJson: string | null;
  /** Plain headers of a row written before header values were sealed. */
  headersJson: string | null;
}

/** Every live credential and model of a team that holds a secret. */
export async function sealedRowsOf(db: D1Db, teamId: string): Promise<SealedRow[]> {
  const [creds, mdls, own] = await db.batch([
    db
      .select({
        id: credentials.id,
        encryptedKey: credentials.encryptedKey,
        sealedHeaders: credentials.sealedHeaders,
        headerNamesJson: credentials.headerNamesJson,
        headersJson: credentials.headersJson,
      })
      .from(credentials)
      // A personal credential sealed to its owner is under their personal key, not the team's.
      .where(and(eq(credentials.teamId, teamId), isNull(credentials.deletedAtMs), isNull(credentials.personalKeyId)))
      .orderBy(asc(credentials.id)),
    db
      .select({
        id: models.id,
        sealedHeaders: models.sealedHeaders,
        headerNamesJson: models.headerNamesJson,
        headersJson: models.headersJson,
      })
      .from(models)
      .where(and(eq(models.teamId, teamId), isNull(models.deletedAtMs), or(isNotNull(models.sealedHeaders), isNotNull(models.headersJson))))
      .orderBy(asc(models.id)),
    db
      .select({ id: teams.id, sealedHeaders: teams.otlpSealedHeaders, headerNamesJson: teams.otlpHeaderNamesJson })
      .from(teams)
      .where(and(eq(teams.id, teamId), isNotNull(teams.otlpSealedHeaders))),
  ]);
  return [
    ...creds.map((row) => ({ table: "credentials" as const, ...row })),
    ...mdls.map((row) => ({ table: "models" as const, encryptedKey: null, ...row })),
    ...own.map((row) => ({ table: "teams" as const, encryptedKey: null, headersJson: null, ...row })),
  ];
}

/** A row's secrets re-sealed: written only where the row still holds what was read, so a concurrent write wins. */
export interface ResealedRow {
  from: SealedRow;
  encryptedKey: string | null;
  sealedHeaders: string | null;
  headerNamesJson: string | null;
}

/** Writes re-sealed rows in one batch; how many were still as read (the others were rewritten meanwhile, under the new key). */
export async function replaceSealedRows(db: D1Db, rows: ResealedRow[]): Promise<number> {
  // updated_at stays: a rotation changes no setting anyone made.
  const statements = rows.map(({ from, encryptedKey, sealedHeaders, headerNamesJson }) => {
    const headers = { sealedHeaders, headerNamesJson, headersJson: null };
    if (from.table === "teams") {
      return db
        .update(teams)
        .set({ otlpSealedHeaders: sealedHeaders, otlpHeaderNamesJson: headerNamesJson })
        .where(and(eq(teams.id, from.id), same(teams.otlpSealedHeaders, from.sealedHeaders)));
    }
    if (from.table === "models") {
      return db
        .update(models)
        .set(headers)
        .where(and(eq(models.id, from.id), same(models.sealedHeaders, from.sealedHeaders), same(models.headersJson, from.headersJson)));
    }
    return db
      .update(credentials)
      .set({ ...headers, ...(encryptedKey !== null && { encryptedKey }) })
      .where(
        and(
          eq(credentials.id, from.id),
          same(credentials.sealedHeaders, from.sealedHeaders),
          same(credentials.headersJson, from.headersJson),
          same(credentials.encryptedKey, from.encryptedKey),
        ),
      );
  });
  const [first, ...rest] = statements;
  if (!first) return 0;
  const results = await db.batch([first, ...rest]);
  return results.reduce((sum, r) => sum + r.meta.changes, 0);
}

function same(column: SQLiteColumn, value: string | null): SQL {
  return value === null ? isNull(column) : eq(column, value);
}
