// Stored models in D1, by intent: create and rename without breaking the one
// rule on names (unique within what one user sees: their own and their team's),
// read one, list what a user sees, change, delete softly, and the rows a
// user's catalogue is built from (src/hosting/config/principal-models.ts). Each change
// carries its audit entries into its batch, written only if the change was (docs/hosting.md#audit-log).
import { and, asc, eq, getTableColumns, isNull, or, type SQL, sql } from "drizzle-orm";
import { type AuditEntry, auditInsertIfChanged } from "./audit-rows.ts";
import { STALE_DATA_KEY, stillSealedUnder } from "./data-key-rows.ts";
import type { D1Db } from "./db.ts";
import { forgetModels } from "./model-references.ts";
import { heldPersonalKeyId } from "./personal-key-rows.ts";
import { teams, users } from "./schema/accounts.ts";
import { credentials, models } from "./schema/providers.ts";

export type ModelRow = typeof models.$inferSelect;
export type ModelPatch = Partial<Omit<ModelRow, "id" | "teamId" | "ownerUserId" | "scope" | "createdAtMs" | "deletedAtMs">>;

/** Whose eyes a name must be unique for: a personal model's owner, or every member of the team. */
interface NameScope {
  teamId: string;
  scope: "user" | "team";
  ownerUserId: string | null;
}

/**
 * A live model that a viewer of `at` would see beside it under `name`: for a personal
 * model, the team's and the owner's own; for a team model, any of the team's members'
 * (removed users' models no longer count).
 */
function nameTaken(name: string, at: NameScope, exceptId: string): SQL {
  const m = sql.raw("m");
  const whose =
    at.scope === "user"
      ? sql`(${m}.scope = 'team' OR ${m}.owner_user_id = ${at.ownerUserId})`
      : sql`(${m}.owner_user_id IS NULL OR ${m}.owner_user_id IN (SELECT id FROM users WHERE removed_at_ms IS NULL))`;
  return sql`EXISTS (SELECT 1 FROM models ${m} WHERE ${m}.deleted_at_ms IS NULL AND ${m}.team_id = ${at.teamId} AND ${m}.name = ${name} AND ${m}.id <> ${exceptId} AND ${whose})`;
}

/**
 * Inserts unless the name is taken, in one statement (so two racing creates cannot both win); one
 * with headers sealed under the team's data key `sealedUnder` only while the team still holds it.
 * Its audit entries are written in the same batch, only if it was inserted.
 */
export async function insertModel(
  db: D1Db,
  row: ModelRow,
  audit: [AuditEntry, ...AuditEntry[]],
  sealedUnder?: string,
): Promise<"created" | "name-taken" | typeof STALE_DATA_KEY> {
  const columns = Object.entries(getTableColumns(models));
  const values = sql.join(
    columns.map(([key, column]) => sql.param(row[key as keyof ModelRow], column)),
    sql`, `,
  );
  const [result] = await db.batch([
    db
      .insert(models)
      .select(
        sql`SELECT ${values} WHERE NOT ${nameTaken(row.name, row, row.id)}${sealedUnder === undefined ? sql`` : sql` AND ${stillSealedUnder(row.teamId, sealedUnder)}`}`,
      ),
    auditInsertIfChanged(db, audit),
  ]);
  if (result.meta.changes === 1) return "created";
  return sealedUnder !== undefined && (await dataKeyChanged(db, row.teamId, sealedUnder)) ? STALE_DATA_KEY : "name-taken";
}

async function dataKeyChanged(db: D1Db, teamId: string, sealedUnder: string): Promise<boolean> {
  const team = await db.select({ wrapped: teams.wrappedDataKey }).from(teams).where(eq(teams.id, teamId)).get();
  return team?.wrapped !== sealedUnder;
}

/** A model not deleted. */
export async function modelById(db: D1Db, id: string): Promise<ModelRow | undefined> {
  return db
    .select()
    .from(models)
    .where(and(eq(models.id, id), isNull(models.deletedAtMs)))
    .get();
}

/** Changes a live model; a new name, and the data key new headers were sealed under, are checked in the same statement. */
export async function updateModel(
  db: D1Db,
  current: ModelRow,
  patch: ModelPatch,
  nowMs: number,
  audit: AuditEntry[],
  sealedUnder?: string,
): Promise<{ model: ModelRow } | "name-taken" | "gone" | typeof STALE_DATA_KEY> {
  const renamed = patch.name !== undefined && patch.name !== current.name;
  const update = db
    .update(models)
    .set({ ...patch, updatedAtMs: nowMs })
    .where(
      and(
        eq(models.id, current.id),
        isNull(models.deletedAtMs),
        renamed ? sql`NOT ${nameTaken(patch.name!, current, current.id)}` : undefined,
        sealedUnder === undefined ? undefined : stillSealedUnder(current.teamId, sealedUnder),
      ),
    )
    .returning();
  const [first, ...rest] = audit;
  const [[row]] = first ? await db.batch([update, auditInsertIfChanged(db, [first, ...rest])]) : [await update];
  if (row) return { model: row };
  if (sealedUnder !== undefined && (await dataKeyChanged(db, current.teamId, sealedUnder))) return STALE_DATA_KEY;
  return renamed && (await modelById(db, current.id)) ? "name-taken" : "gone";
}

export async function deleteModel(db: D1Db, id: string, nowMs: number, audit: [AuditEntry, ...AuditEntry[]]): Promise<void> {
  await db.batch([
    db
      .update(models)
      .set({ deletedAtMs: nowMs, updatedAtMs: nowMs })
      .where(and(eq(models.id, id), isNull(models.deletedAtMs))),
    auditInsertIfChanged(db, audit),
    ...forgetModels(db, sql`(${id})`),
  ]);
}

/** Models whose credential is live: what a user sees (own + team's), or everything for the operator. */
export async function modelsVisibleTo(db: D1Db, who: { userId: string; teamId: string } | { teamId?: string }): Promise<ModelRow[]> {
  const live = and(isNull(models.deletedAtMs), isNull(credentials.deletedAtMs));
  const where =
    "userId" in who
      ? and(live, eq(models.teamId, who.teamId), or(eq(models.scope, "team"), eq(models.ownerUserId, who.userId)))
      : who.teamId
        ? and(live, eq(models.teamId, who.teamId))
        : live;
  const rows = await db
    .select({ model: models })
    .from(models)
    .innerJoin(credentials, eq(credentials.id, models.credentialId))
    .where(where)
    .orderBy(asc(models.createdAtMs), asc(models.id))
    .all();
  return rows.map((r) => r.model);
}

/** The keys a model lists besides its own credential (docs/providers.md#keys-behind-one-model), as its API shows them. */
export function modelKeysOf(row: Pick<ModelRow, "keysJson">): { credential_id: string; weight: number }[] {
  return row.keysJson ? (JSON.parse(row.keysJson) as { credential_id: string; weight: number }[]) : [];
}

/** What one model needs for a provider call: its row, its credential and its team's wrapped data key (two during a rotation). */
export interface UsableModelRow {
  model: ModelRow;
  credential: typeof credentials.$inferSelect;
  wrappedDataKey: string | null;
  previousWrappedDataKey: string | null;
  /** The personal key its owner holds now (a personal credential's; null when no live token holds it): a credential under another one is lost. */
  ownerPersonalKeyId: string | null;
}

/** The credential owner's held personal key id, null for a team credential. */
const ownerPersonalKeyId = heldPersonalKeyId(credentials.ownerUserId);

/** A user's enabled models on live credentials, own and team's, oldest first (Cursor's default is the first). */
export async function usableModelsOf(db: D1Db, userId: string, teamId: string): Promise<UsableModelRow[]> {
  return db
    .select({
      model: models,
      credential: credentials,
      wrappedDataKey: teams.wrappedDataKey,
      previousWrappedDataKey: teams.previousWrappedDataKey,
      ownerPersonalKeyId,
    })
    .from(models)
    .innerJoin(credentials, and(eq(credentials.id, models.credentialId), eq(credentials.teamId, models.teamId)))
    .innerJoin(teams, eq(teams.id, models.teamId))
    .innerJoin(users, eq(users.id, userId))
    .where(
      and(
        isNull(models.deletedAtMs),
        isNull(credentials.deletedAtMs),
        isNull(users.removedAtMs),
        eq(users.teamId, teamId),
        eq(models.enabled, true),
        eq(models.teamId, teamId),
        or(eq(models.scope, "team"), eq(models.ownerUserId, userId)),
        or(eq(credentials.scope, "team"), eq(credentials.ownerUserId, userId)),
      ),
    )
    .orderBy(asc(models.createdAtMs), asc(models.id))
    .all();
}

/** The one usable row of a model by id, for the model test endpoint. */
export async function usableModelById(db: D1Db, id: string): Promise<UsableModelRow | undefined> {
  return db
    .select({
      model: models,
      credential: credentials,
      wrappedDataKey: teams.wrappedDataKey,
      previousWrappedDataKey: teams.previousWrappedDataKey,
      ownerPersonalKeyId,
    })
    .from(models)
    .innerJoin(credentials, and(eq(credentials.id, models.credentialId), eq(credentials.teamId, models.teamId)))
    .innerJoin(teams, eq(teams.id, models.teamId))
    .where(and(eq(models.id, id), isNull(models.deletedAtMs), isNull(credentials.deletedAtMs)))
    .get();
}
