// Teams in D1, by intent: create, list, read one, change name or budget; each change with
// its audit entries in the same batch (docs/hosting.md#audit-log).
import type { BatchItem } from "drizzle-orm/batch";
import { and, asc, eq, isNull } from "drizzle-orm";
import { type AuditEntry, auditInsert, auditInsertIfChanged } from "./audit-rows.ts";
import { STALE_DATA_KEY } from "./data-key-rows.ts";
import { type D1Db, isUniqueViolation, newId } from "./db.ts";
import { HOSTED_TEAMS } from "./local-account.ts";
import { type Role, teams } from "./schema/accounts.ts";

export type TeamRow = typeof teams.$inferSelect;

export interface TeamPatch {
  name?: string;
  monthlyTokenBudget?: number | null;
  codeModeCpuMs?: number | null;
  ssoDefaultRole?: Role | null;
  maxTokenDays?: number | null;
  otlpEndpoint?: string | null;
  otlpSealedHeaders?: string | null;
  otlpHeaderNamesJson?: string | null;
}

export async function createTeam(
  db: D1Db,
  team: { name: string; monthlyTokenBudget: number | null; codeModeCpuMs?: number | null },
  nowMs: number,
  audit: (team: TeamRow) => [AuditEntry, ...AuditEntry[]],
): Promise<{ team: TeamRow } | { conflict: "name" }> {
  const row: TeamRow = {
    id: newId("team"),
    codeModeCpuMs: null,
    ssoDefaultRole: null,
    maxTokenDays: null,
    otlpEndpoint: null,
    otlpSealedHeaders: null,
    otlpHeaderNamesJson: null,
    ...team,
    wrappedDataKey: null,
    previousWrappedDataKey: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  };
  try {
    await db.batch([db.insert(teams).values(row), auditInsert(db, audit(row))]);
  } catch (err) {
    if (isUniqueViolation(err)) return { conflict: "name" };
    throw err;
  }
  return { team: row };
}

export async function allTeams(db: D1Db): Promise<TeamRow[]> {
  return db.select().from(teams).where(HOSTED_TEAMS).orderBy(asc(teams.createdAtMs), asc(teams.id)).all();
}

export async function teamById(db: D1Db, id: string): Promise<TeamRow | undefined> {
  return db.select().from(teams).where(eq(teams.id, id)).get();
}

/**
 * A name taken fails the whole batch, its entries with it; so does a domain another team took
 * (`before`: statements of the same change, its sign-on domains, run first in the batch).
 */
export async function updateTeam(
  db: D1Db,
  id: string,
  patch: TeamPatch,
  nowMs: number,
  audit: AuditEntry[],
  before?: BatchItem<"sqlite">[],
): Promise<{ team: TeamRow } | { conflict: "name" }>;
/** `sealedUnder`: the wrapped data key the patch's secrets were sealed under; the write holds only while the team still has it. */
export async function updateTeam(
  db: D1Db,
  id: string,
  patch: TeamPatch,
  nowMs: number,
  audit: AuditEntry[],
  before: BatchItem<"sqlite">[],
  sealedUnder: string,
): Promise<{ team: TeamRow } | { conflict: "name" } | typeof STALE_DATA_KEY>;
export async function updateTeam(
  db: D1Db,
  id: string,
  patch: TeamPatch,
  nowMs: number,
  audit: AuditEntry[],
  before: BatchItem<"sqlite">[] = [],
  sealedUnder?: string,
): Promise<{ team: TeamRow } | { conflict: "name" } | typeof STALE_DATA_KEY> {
  try {
    const update = db
      .update(teams)
      .set({ ...patch, updatedAtMs: nowMs })
      .where(and(eq(teams.id, id), sealedUnder === undefined ? undefined : eq(teams.wrappedDataKey, sealedUnder)))
      .returning();
    const [first, ...rest] = audit;
    // Recorded only when the update was made (a stale key's attempt is tried again, and recorded then).
    const results = await db.batch([...before, update, ...(first ? [auditInsertIfChanged(db, [first, ...rest])] : [])] as [
      BatchItem<"sqlite">,
      ...BatchItem<"sqlite">[],
    ]);
    const [row] = results[before.length] as TeamRow[];
    if (row) return { team: row };
    if (sealedUnder !== undefined) return STALE_DATA_KEY;
    throw new Error("updateTeam: the team vanished");
  } catch (err) {
    if (isUniqueViolation(err)) return { conflict: "name" };
    throw err;
  }
}

/** Stores a team's first data key; when another request stored one first, that one is kept and returned. */
export async function setTeamDataKeyOnce(db: D1Db, id: string, wrapped: string, nowMs: number): Promise<string | undefined> {
  await db
    .update(teams)
    .set({ wrappedDataKey: wrapped, updatedAtMs: nowMs })
    .where(and(eq(teams.id, id), isNull(teams.wrappedDataKey)))
    .run();
  return (await teamById(db, id))?.wrappedDataKey ?? undefined;
}
