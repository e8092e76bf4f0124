// Stored provider credentials in D1, by intent: create, read one, list what a
// user may use (own + team's), replace the key, delete softly. The key column
// holds ciphertext only (src/hosting/keys/credential-key.ts). Each change carries its audit
// entries into its batch (docs/hosting.md#audit-log).
import { and, asc, eq, getTableColumns, isNotNull, isNull, or, sql } from "drizzle-orm";
import { type AuditEntry, auditInsert, auditInsertIfChanged } from "./audit-rows.ts";
import { STALE_DATA_KEY, stillSealedUnder } from "./data-key-rows.ts";
import type { D1Db } from "./db.ts";
import { forgetModels } from "./model-references.ts";
import { credentials, models } from "./schema/providers.ts";

export type CredentialRow = typeof credentials.$inferSelect;

/**
 * Inserts a credential with its audit entries; one with secrets sealed under the team's data key
 * `sealedUnder` only while the team still holds that key, in one statement (a data-key rotation
 * may have replaced it), and its entries then only if it was inserted.
 */
export async function insertCredential(
  db: D1Db,
  row: CredentialRow,
  audit: [AuditEntry, ...AuditEntry[]],
  sealedUnder?: string,
): Promise<"created" | typeof STALE_DATA_KEY> {
  if (sealedUnder === undefined) {
    await db.batch([db.insert(credentials).values(row), auditInsert(db, audit)]);
    return "created";
  }
  const values = sql.join(
    Object.entries(getTableColumns(credentials)).map(([key, column]) => sql.param(row[key as keyof CredentialRow], column)),
    sql`, `,
  );
  const [result] = await db.batch([
    db.insert(credentials).select(sql`SELECT ${values} WHERE ${stillSealedUnder(row.teamId, sealedUnder)}`),
    auditInsertIfChanged(db, audit),
  ]);
  return result.meta.changes === 1 ? "created" : STALE_DATA_KEY;
}

/** A credential not deleted. */
export async function credentialById(db: D1Db, id: string): Promise<CredentialRow | undefined> {
  return db
    .select()
    .from(credentials)
    .where(and(eq(credentials.id, id), isNull(credentials.deletedAtMs)))
    .get();
}

/** What one user may use: their own and their team's; every credential for the operator (optionally of one team). */
export async function credentialsVisibleTo(
  db: D1Db,
  who: { userId: string; teamId: string } | { teamId?: string },
): Promise<CredentialRow[]> {
  const live = isNull(credentials.deletedAtMs);
  const where =
    "userId" in who
      ? and(
          live,
          eq(credentials.teamId, who.teamId),
          or(eq(credentials.scope, "team"), and(eq(credentials.scope, "user"), eq(credentials.ownerUserId, who.userId))),
        )
      : who.teamId
        ? and(live, eq(credentials.teamId, who.teamId))
        : live;
  return db.select().from(credentials).where(where).orderBy(asc(credentials.createdAtMs), asc(credentials.id)).all();
}

/**
 * Replaces the key sealed under the team's data key `sealedUnder` (null: under its owner's
 * personal key, with the rest of what it seals); stale when the team's data key changed since
 * (seal again), undefined when the credential is gone.
 */
export async function replaceCredentialKey(
  db: D1Db,
  current: CredentialRow,
  key: { encryptedKey: string; keyLastFour: string } & Partial<
    Pick<CredentialRow, "personalKeyId" | "sealedHeaders" | "headerNamesJson" | "headersJson">
  >,
  sealedUnder: string | null,
  nowMs: number,
  audit: [AuditEntry, ...AuditEntry[]],
): Promise<CredentialRow | typeof STALE_DATA_KEY | undefined> {
  const [[row]] = await db.batch([
    db
      .update(credentials)
      // A new key is not broken until its provider says so (docs/providers.md#keys-behind-one-model).
      .set({ ...key, updatedAtMs: nowMs, brokenAtMs: null, brokenReason: null })
      .where(
        and(
          eq(credentials.id, current.id),
          isNull(credentials.deletedAtMs),
          sealedUnder === null ? undefined : stillSealedUnder(current.teamId, sealedUnder),
        ),
      )
      .returning(),
    auditInsertIfChanged(db, audit),
  ]);
  if (row) return row;
  return (await credentialById(db, current.id)) ? STALE_DATA_KEY : undefined;
}

/**
 * Soft delete, with the models on it in the same batch: they stop being listed and usable at
 * once, and their names are free again (a model nobody can see must not hold a name).
 */
export async function deleteCredential(db: D1Db, id: string, nowMs: number, audit: [AuditEntry, ...AuditEntry[]]): Promise<void> {
  await db.batch([
    db
      .update(credentials)
      .set({ deletedAtMs: nowMs, updatedAtMs: nowMs })
      .where(and(eq(credentials.id, id), isNull(credentials.deletedAtMs))),
    auditInsertIfChanged(db, audit),
    db
      .update(models)
      .set({ deletedAtMs: nowMs, updatedAtMs: nowMs })
      .where(and(eq(models.credentialId, id), isNull(models.deletedAtMs))),
    // Other models listing it among their keys stop listing it (so their next edit is not refused for it).
    db
      .update(models)
      .set({
        keysJson: sql`(SELECT CASE WHEN count(*) = 0 THEN NULL ELSE json_group_array(json(value)) END
          FROM json_each(${models.keysJson}) WHERE json_extract(value, '$.credential_id') <> ${id})`,
      })
      .where(
        and(
          isNotNull(models.keysJson),
          sql`EXISTS (SELECT 1 FROM json_each(${models.keysJson}) WHERE json_extract(value, '$.credential_id') = ${id})`,
        ),
      ),
    // The models on it went with it: the others stop naming them as fallbacks or roles.
    ...forgetModels(db, sql`(SELECT ${models.id} FROM ${models} WHERE ${models.credentialId} = ${id})`),
  ]);
}

/**
 * Marks a credential broken (its provider refused it) as of the version it was seen on, its
 * `updated_at_ms`: a key written again since is not marked. Once per version.
 */
export async function markCredentialBroken(
  db: D1Db,
  mark: { teamId: string; id: string; updatedAtMs: number; atMs: number; reason: string },
): Promise<void> {
  await db
    .update(credentials)
    .set({ brokenAtMs: mark.atMs, brokenReason: mark.reason })
    .where(
      and(
        eq(credentials.id, mark.id),
        eq(credentials.teamId, mark.teamId),
        eq(credentials.updatedAtMs, mark.updatedAtMs),
        isNull(credentials.brokenAtMs),
        isNull(credentials.deletedAtMs),
      ),
    )
    .run();
}

/** A broken credential answered again (docs/providers.md#keys-behind-one-model): its mark goes, if it is still the version that answered. */
export async function clearCredentialBroken(db: D1Db, mark: { teamId: string; id: string; updatedAtMs: number }): Promise<void> {
  await db
    .update(credentials)
    .set({ brokenAtMs: null, brokenReason: null })
    .where(and(eq(credentials.id, mark.id), eq(credentials.teamId, mark.teamId), eq(credentials.updatedAtMs, mark.updatedAtMs)))
    .run();
}
