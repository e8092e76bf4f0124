// What limits a hosted user runs under, and a team's tokens of one month from
// the ledger (docs/hosting.md#limits).
import { and, eq, gte, isNull, lt, sql } from "drizzle-orm";
import type { D1Db } from "./db.ts";
import { teams, users } from "./schema/accounts.ts";
import { usageLedger } from "./schema/usage.ts";

export interface LimitsRow {
  requestsPerMinute: number | null;
  maxConcurrentRuns: number | null;
  monthlyTokenBudget: number | null;
  codeModeCpuMs: number | null;
}

/** The user's limits and their team's budget; undefined for a removed or unknown user. */
export async function limitsOfUser(db: D1Db, userId: string): Promise<LimitsRow | undefined> {
  return db
    .select({
      requestsPerMinute: users.requestsPerMinute,
      maxConcurrentRuns: users.maxConcurrentRuns,
      monthlyTokenBudget: teams.monthlyTokenBudget,
      codeModeCpuMs: teams.codeModeCpuMs,
    })
    .from(users)
    .innerJoin(teams, eq(teams.id, users.teamId))
    .where(and(eq(users.id, userId), isNull(users.removedAtMs)))
    .get();
}

/** Input + output tokens the ledger holds for a team on days in [from, until). */
export async function teamTokensBetween(db: D1Db, teamId: string, from: string, until: string): Promise<number> {
  const row = await db
    .select({ tokens: sql<number>`coalesce(sum(${usageLedger.inputTokens} + ${usageLedger.outputTokens}), 0)` })
    .from(usageLedger)
    .where(and(eq(usageLedger.teamId, teamId), gte(usageLedger.day, from), lt(usageLedger.day, until)))
    .get();
  return Number(row?.tokens ?? 0);
}
