// The dashboard's overview (docs/dashboard.md#overview, docs/telemetry.md#overview), from the
// D1 records of runs and provider calls in the caller's scope: today's runs and failures, the
// time to first token per model over a range, today's slowest and failing calls, and who spent
// most. No text: ids, models, statuses, timings and sums.
import { and, desc, eq, gte, isNotNull, lt, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { D1Db } from "./db.ts";
import { users } from "./schema/accounts.ts";
import { providerCalls, usage, usageLedger } from "./schema/usage.ts";
import type { UsageScope } from "./usage-report.ts";

/** At most this many first-token times per range go into the percentiles; the newest are kept. */
const TTFT_SAMPLES_MAX = 50_000;
const LIST_MAX = 10;

export interface Overview {
  today: { runs: number; failed: number };
  ttft: { model: string; calls: number; p50Ms: number; p95Ms: number }[];
  slowest: CallRow[];
  failing: CallRow[];
  topUsers: { principal: string; email: string | null; costUsd: number; requests: number }[];
}

interface CallRow {
  callId: string;
  runId: string;
  model: string;
  status: string;
  httpStatus: number | null;
  durationMs: number | null;
  ttftMs: number | null;
  createdAtMs: number;
}

const CALL_COLUMNS = {
  callId: providerCalls.callId,
  runId: providerCalls.runId,
  model: providerCalls.model,
  status: providerCalls.status,
  httpStatus: providerCalls.httpStatus,
  durationMs: providerCalls.durationMs,
  ttftMs: providerCalls.ttftMs,
  createdAtMs: providerCalls.createdAtMs,
};

/** `range`: UTC days, both included; `dayStartMs`: today's start; `withUsers`: the caller sees who spent what. */
export async function overviewOf(
  db: D1Db,
  scope: UsageScope,
  range: { from: string; to: string },
  dayStartMs: number,
  withUsers: boolean,
): Promise<Overview> {
  const callsIn = (...more: SQL[]) => and(...scopeOf(scope, providerCalls), ...more);
  const fromMs = Date.parse(`${range.from}T00:00:00Z`);
  const untilMs = Date.parse(`${range.to}T00:00:00Z`) + 86_400_000;
  const today = gte(providerCalls.createdAtMs, dayStartMs);
  const [runs, ttfts, slowest, failing, top] = await db.batch([
    db
      .select({ runs: sql<number>`count(*)`, failed: sql<number>`coalesce(sum(${usage.status} = 'failed'), 0)` })
      .from(usage)
      .where(and(...scopeOf(scope, usage), gte(usage.createdAtMs, dayStartMs))),
    db
      .select({ model: providerCalls.model, ttftMs: providerCalls.ttftMs })
      .from(providerCalls)
      .where(callsIn(isNotNull(providerCalls.ttftMs), gte(providerCalls.createdAtMs, fromMs), lt(providerCalls.createdAtMs, untilMs)))
      .orderBy(desc(providerCalls.createdAtMs))
      .limit(TTFT_SAMPLES_MAX),
    db
      .select(CALL_COLUMNS)
      .from(providerCalls)
      .where(callsIn(today, isNotNull(providerCalls.durationMs)))
      .orderBy(desc(providerCalls.durationMs))
      .limit(LIST_MAX),
    db
      .select(CALL_COLUMNS)
      .from(providerCalls)
      .where(callsIn(today, eq(providerCalls.status, "failed")))
      .orderBy(desc(providerCalls.createdAtMs))
      .limit(LIST_MAX),
    db
      .select({
        principal: usageLedger.principal,
        email: sql<string | null>`max(${users.email})`,
        costUsd: sql<number>`total(${usageLedger.costUsd})`,
        requests: sql<number>`sum(${usageLedger.requests})`,
      })
      .from(usageLedger)
      .leftJoin(users, eq(users.id, usageLedger.principal))
      .where(and(...scopeOf(scope, usageLedger), gte(usageLedger.day, range.from), sql`${usageLedger.day} <= ${range.to}`))
      .groupBy(usageLedger.principal)
      .orderBy(desc(sql`total(${usageLedger.costUsd})`), desc(sql`sum(${usageLedger.requests})`))
      .limit(LIST_MAX),
  ]);
  return {
    today: { runs: Number(runs[0]?.runs ?? 0), failed: Number(runs[0]?.failed ?? 0) },
    ttft: percentilesByModel(ttfts),
    slowest,
    failing,
    topUsers: withUsers ? top.map((t) => ({ ...t, costUsd: Number(t.costUsd), requests: Number(t.requests) })) : [],
  };
}

function scopeOf(scope: UsageScope, table: { principal: SQLiteColumn; teamId: SQLiteColumn }): SQL[] {
  if ("principal" in scope) return [eq(table.principal, scope.principal)];
  if ("teamId" in scope) return [eq(table.teamId, scope.teamId)];
  return [];
}

function percentilesByModel(rows: { model: string; ttftMs: number | null }[]): Overview["ttft"] {
  const byModel = new Map<string, number[]>();
  for (const row of rows) {
    if (row.ttftMs === null) continue;
    const values = byModel.get(row.model);
    if (values) values.push(row.ttftMs);
    else byModel.set(row.model, [row.ttftMs]);
  }
  return [...byModel.entries()]
    .map(([model, values]) => {
      const sorted = values.sort((a, b) => a - b);
      return { model, calls: sorted.length, p50Ms: nearestRank(sorted, 0.5), p95Ms: nearestRank(sorted, 0.95) };
    })
    .sort((a, b) => a.model.localeCompare(b.model));
}

/** The nearest-rank percentile of sorted values. */
function nearestRank(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
}
