// Users in D1, by intent. Removal is soft and revokes the user's tokens in the
// same batch. A team keeps at least one admin: demoting or removing its last
// one is refused inside the statement itself, so two concurrent calls cannot both pass.
// Each change carries its audit entries into its batch (docs/hosting.md#audit-log).
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { type AuditEntry, auditInsert, auditInsertIfChanged } from "./audit-rows.ts";
import { type D1Db, isUniqueViolation, newId } from "./db.ts";
import { type Role, tokens, users } from "./schema/accounts.ts";

export type UserRow = typeof users.$inferSelect;

export interface NewUser {
  teamId: string;
  email: string;
  role: Role;
  requestsPerMinute: number | null;
  maxConcurrentRuns: number | null;
}

export interface UserPatch {
  role?: Role;
  requestsPerMinute?: number | null;
  maxConcurrentRuns?: number | null;
}

export async function addUser(
  db: D1Db,
  user: NewUser,
  nowMs: number,
  audit: (user: UserRow) => [AuditEntry, ...AuditEntry[]],
): Promise<{ user: UserRow } | { conflict: "email" }> {
  const row: UserRow = { id: newId("usr"), ...user, createdAtMs: nowMs, updatedAtMs: nowMs, removedAtMs: null, personalKeyId: null };
  try {
    await db.batch([db.insert(users).values(row), auditInsert(db, audit(row))]);
  } catch (err) {
    if (isUniqueViolation(err)) return { conflict: "email" };
    throw err;
  }
  return { user: row };
}

/** A user that has not been removed. */
export async function activeUser(db: D1Db, id: string): Promise<UserRow | undefined> {
  return db
    .select()
    .from(users)
    .where(and(eq(users.id, id), isNull(users.removedAtMs)))
    .get();
}

export async function activeUsersOfTeam(db: D1Db, teamId: string): Promise<UserRow[]> {
  return db
    .select()
    .from(users)
    .where(and(eq(users.teamId, teamId), isNull(users.removedAtMs)))
    .orderBy(asc(users.createdAtMs), asc(users.id))
    .all();
}

/** Changes role or limits; undefined when the change would leave the team without an admin. */
export async function updateUser(
  db: D1Db,
  user: UserRow,
  patch: UserPatch,
  nowMs: number,
  audit: AuditEntry[],
): Promise<UserRow | undefined> {
  const demotes = user.role === "admin" && patch.role !== undefined && patch.role !== "admin";
  const update = db
    .update(users)
    .set({ ...patch, updatedAtMs: nowMs })
    .where(and(eq(users.id, user.id), isNull(users.removedAtMs), demotes ? anotherAdminRemains(user) : undefined))
    .returning();
  const [first, ...rest] = audit;
  const [[row]] = first ? await db.batch([update, auditInsertIfChanged(db, [first, ...rest])]) : [await update];
  return row;
}

/** Removes the user and revokes their tokens; false when they are the team's last admin. */
export async function removeUser(db: D1Db, user: UserRow, nowMs: number, audit: [AuditEntry, ...AuditEntry[]]): Promise<boolean> {
  const [removed] = await db.batch([
    db
      .update(users)
      // Their personal key goes with their tokens (docs/keys-at-rest.md#personal-keys).
      .set({ removedAtMs: nowMs, updatedAtMs: nowMs, personalKeyId: null })
      .where(and(eq(users.id, user.id), isNull(users.removedAtMs), user.role === "admin" ? anotherAdminRemains(user) : undefined))
      .returning({ id: users.id }),
    auditInsertIfChanged(db, audit),
    // Runs after the removal in the same batch: revokes only if the user is now removed.
    db
      .update(tokens)
      .set({ revokedAtMs: nowMs, personalKeyWrap: null })
      .where(
        and(
          eq(tokens.userId, user.id),
          isNull(tokens.revokedAtMs),
          sql`EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${user.id} AND ${users.removedAtMs} IS NOT NULL)`,
        ),
      ),
  ]);
  return removed.length > 0;
}

/** True while the team has an admin other than this user (evaluated inside the update). */
function anotherAdminRemains(user: UserRow) {
  return sql`(SELECT count(*) FROM ${users} AS others WHERE others.team_id = ${user.teamId} AND others.role = 'admin' AND others.removed_at_ms IS NULL AND others.id <> ${user.id}) > 0`;
}
