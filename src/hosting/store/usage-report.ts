// The usage API's read of the ledger (docs/hosting.md#usage-api): token sums per
// day, user or model over a range of UTC days, within what the caller may see.
import { and, asc, eq, gte, isNull, lte, type SQL, sql } from "drizzle-orm";
import type { D1Db } from "./db.ts";
import { HOSTED_USERS } from "./local-account.ts";
import { users } from "./schema/accounts.ts";
import { usageLedger } from "./schema/usage.ts";

export type UsageGroup = "day" | "user" | "model";

/** Whose rows: one principal's, one team's, or everyone's (the operator). */
export type UsageScope = { principal: string } | { teamId: string } | { all: true };

export interface UsageTotals {
  key: string;
  /** Grouped by user: the user's email; null for local, removed users and other groupings. */
  email: string | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  costUsd: number;
  cells: number;
  cellWallMs: number;
}

const GROUP_COLUMN = { day: usageLedger.day, user: usageLedger.principal, model: usageLedger.model } as const;

/** `from` and `to` are UTC days (`YYYY-MM-DD`), both included. */
export async function usageTotals(
  db: D1Db,
  scope: UsageScope,
  range: { from: string; to: string },
  group: UsageGroup,
): Promise<UsageTotals[]> {
  const key = GROUP_COLUMN[group];
  const where: SQL[] = [gte(usageLedger.day, range.from), lte(usageLedger.day, range.to)];
  if ("principal" in scope) where.push(eq(usageLedger.principal, scope.principal));
  if ("teamId" in scope) where.push(eq(usageLedger.teamId, scope.teamId));
  // SQLite's sum is an integer for integer columns; total() keeps cost a real, 0 when empty.
  return db
    .select({
      key,
      // One user row per principal at most (users.id), so max() only names it.
      email: group === "user" ? sql<string | null>`max(${users.email})` : sql<null>`null`,
      requests: sql<number>`sum(${usageLedger.requests})`,
      inputTokens: sql<number>`sum(${usageLedger.inputTokens})`,
      outputTokens: sql<number>`sum(${usageLedger.outputTokens})`,
      cacheReadTokens: sql<number>`sum(${usageLedger.cacheReadTokens})`,
      cacheWriteTokens: sql<number>`sum(${usageLedger.cacheWriteTokens})`,
      reasoningTokens: sql<number>`sum(${usageLedger.reasoningTokens})`,
      costUsd: sql<number>`total(${usageLedger.costUsd})`,
      cells: sql<number>`sum(${usageLedger.cells})`,
      cellWallMs: sql<number>`sum(${usageLedger.cellWallMs})`,
    })
    .from(usageLedger)
    .leftJoin(users, and(eq(users.id, usageLedger.principal), isNull(users.removedAtMs), HOSTED_USERS))
    .where(and(...where))
    .groupBy(key)
    .orderBy(asc(key))
    .all();
}
