// Single sign-on in D1, by intent (docs/hosting.md#single-sign-on): a team's email domains, the
// people an email names, the OIDC attempts in flight and the connector's grants, each attempt and
// grant taken once (deleted as it is read, so a replay finds nothing).
import type { BatchItem } from "drizzle-orm/batch";
import { and, eq, inArray, isNull, lt, type SQL, sql } from "drizzle-orm";
import { type AuditEntry, auditInsert } from "./audit-rows.ts";
import { type D1Db, isUniqueViolation } from "./db.ts";
import { teams, tokens, users } from "./schema/accounts.ts";
import { connectorGrants, ssoAttempts, ssoDomains } from "./schema/sign-on.ts";

export type SsoAttemptRow = typeof ssoAttempts.$inferSelect;
export type ConnectorGrantRow = typeof connectorGrants.$inferSelect;
type UserRow = typeof users.$inferSelect;

export async function domainsOfTeam(db: D1Db, teamId: string): Promise<string[]> {
  return (await domainsOfTeams(db, [teamId])).get(teamId) ?? [];
}

/** The domains each of these teams lists, by team id. */
export async function domainsOfTeams(db: D1Db, teamIds: string[]): Promise<Map<string, string[]>> {
  const byTeam = new Map<string, string[]>();
  if (teamIds.length === 0) return byTeam;
  const rows = await db.select().from(ssoDomains).where(inArray(ssoDomains.teamId, teamIds)).all();
  for (const row of rows) byTeam.set(row.teamId, [...(byTeam.get(row.teamId) ?? []), row.domain]);
  for (const list of byTeam.values()) list.sort();
  return byTeam;
}

/** Another team that lists one of these domains already, with that domain. */
export async function domainTakenElsewhere(db: D1Db, teamId: string, domains: string[]) {
  if (domains.length === 0) return undefined;
  return db
    .select()
    .from(ssoDomains)
    .where(and(inArray(ssoDomains.domain, domains), sql`${ssoDomains.teamId} <> ${teamId}`))
    .get();
}

/**
 * The statements that make these a team's domains, for the batch of the team's update: a domain
 * another team took meanwhile fails the whole batch (the primary key), so two teams never share one.
 * `onlyIf`: a condition both statements hold to (a patch's sealed write: the team still has that data key).
 */
export function replaceDomains(db: D1Db, teamId: string, domains: string[], onlyIf?: SQL): [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] {
  const remove = db.delete(ssoDomains).where(and(eq(ssoDomains.teamId, teamId), onlyIf));
  if (domains.length === 0) return [remove];
  if (!onlyIf) return [remove, db.insert(ssoDomains).values(domains.map((domain) => ({ domain, teamId })))];
  // Columns in the table's order: domain, team_id.
  const rows = sql.join(
    domains.map((domain) => sql`SELECT ${domain}, ${teamId} WHERE ${onlyIf}`),
    sql` UNION ALL `,
  );
  return [remove, db.insert(ssoDomains).select(rows)];
}

/** The team that lists a domain, with its sign-on settings. */
export async function teamOfDomain(db: D1Db, domain: string) {
  return db
    .select({ id: teams.id, name: teams.name, ssoDefaultRole: teams.ssoDefaultRole })
    .from(ssoDomains)
    .innerJoin(teams, eq(teams.id, ssoDomains.teamId))
    .where(eq(ssoDomains.domain, domain))
    .get();
}

/** The users, active or removed, whose email is this one (an email may be a user of several teams). */
export async function usersByEmail(db: D1Db, email: string): Promise<UserRow[]> {
  return db.select().from(users).where(eq(users.email, email)).all();
}

/** Adds the user a first sign-in creates, with its audit entries; undefined when a concurrent sign-in created them first. */
export async function provisionUser(db: D1Db, row: UserRow, audit: [AuditEntry, ...AuditEntry[]]): Promise<UserRow | undefined> {
  try {
    await db.batch([db.insert(users).values(row), auditInsert(db, audit)]);
    return row;
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

export async function insertAttempt(db: D1Db, attempt: SsoAttemptRow, olderThanMs: number): Promise<void> {
  // Each new attempt also clears the abandoned ones, so the table stays small without a cron.
  await db.batch([db.delete(ssoAttempts).where(lt(ssoAttempts.createdAtMs, olderThanMs)), db.insert(ssoAttempts).values(attempt)]);
}

/** The attempt of a state hash, removed as it is read: a second callback with the same state finds nothing. */
export async function takeAttempt(db: D1Db, stateHash: string): Promise<SsoAttemptRow | undefined> {
  const [row] = await db.delete(ssoAttempts).where(eq(ssoAttempts.stateHash, stateHash)).returning();
  return row;
}

export async function insertGrant(
  db: D1Db,
  grant: ConnectorGrantRow,
  olderThanMs: number,
  audit: [AuditEntry, ...AuditEntry[]],
): Promise<void> {
  await db.batch([
    db.delete(connectorGrants).where(lt(connectorGrants.createdAtMs, olderThanMs)),
    db.insert(connectorGrants).values(grant),
    auditInsert(db, audit),
  ]);
}

/** Gives the exchanged token its lifetime; false when it was revoked meanwhile (or its user removed). */
export async function claimGrantToken(db: D1Db, grant: ConnectorGrantRow): Promise<boolean> {
  const [row] = await db
    .update(tokens)
    .set({ expiresAtMs: grant.tokenExpiresAtMs })
    .where(and(eq(tokens.id, grant.tokenId), isNull(tokens.revokedAtMs)))
    .returning({ id: tokens.id });
  return row !== undefined;
}

/** The grant of a code hash, removed as it is read: a replayed code finds nothing. */
export async function takeGrant(db: D1Db, codeHash: string): Promise<ConnectorGrantRow | undefined> {
  const [row] = await db.delete(connectorGrants).where(eq(connectorGrants.codeHash, codeHash)).returning();
  return row;
}
