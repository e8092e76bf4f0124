// The runs API's read of D1 (docs/hosting.md#runs-api): run rows newest first
// with their provider calls, and conversations summarised from their runs, a page
// at a time by keyset (finish time, row id). Only statuses, timings and token
// counts: the tables hold no prompt or response text.
import { and, asc, desc, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { D1Db } from "./db.ts";
import { HOSTED_USERS } from "./local-account.ts";
import { users } from "./schema/accounts.ts";
import { providerCalls, usage } from "./schema/usage.ts";

/** Each given field narrows the rows: one principal, one team, one conversation. */
export interface RunsFilter {
  principal?: string;
  teamId?: string;
  conversationId?: string;
}

/** Where a page starts: strictly older than this run row (its finish time, then its row id). */
export interface RunsCursor {
  atMs: number;
  rowId: number;
}

export type RunRow = Awaited<ReturnType<typeof runsPage>>[number];
export type ProviderCallRow = typeof providerCalls.$inferSelect;

/** A column of the usage table or of the conversations' common table expression. */
type Column = Parameters<typeof eq>[0];

/** The email of a user not removed; null for local and removed users. */
const activeUserOf = (principal: Column) => and(eq(users.id, principal), isNull(users.removedAtMs), HOSTED_USERS);

function filtered(filter: RunsFilter): SQL[] {
  const where: SQL[] = [];
  if (filter.principal !== undefined) where.push(eq(usage.principal, filter.principal));
  if (filter.teamId !== undefined) where.push(eq(usage.teamId, filter.teamId));
  if (filter.conversationId !== undefined) where.push(eq(usage.conversationId, filter.conversationId));
  return where;
}

/** A row value comparison: SQLite walks the (created_at_ms, id) index for it, where the OR form may sort. */
function olderThan(atMs: Column, rowId: Column, cursor: RunsCursor) {
  return sql`(${atMs}, ${rowId}) < (${cursor.atMs}, ${cursor.rowId})`;
}

/** Up to `limit` runs, newest finished first. */
export async function runsPage(db: D1Db, filter: RunsFilter, cursor: RunsCursor | undefined, limit: number) {
  const where = filtered(filter);
  if (cursor) where.push(olderThan(usage.createdAtMs, usage.id, cursor));
  return db
    .select({
      rowId: usage.id,
      runId: usage.runId,
      requestId: usage.requestId,
      conversationId: usage.conversationId,
      principal: usage.principal,
      email: users.email,
      teamId: usage.teamId,
      model: usage.model,
      status: usage.status,
      startedAtMs: usage.startedAtMs,
      finishedAtMs: usage.createdAtMs,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      cacheReadTokens: usage.cacheReadTokens,
      cacheWriteTokens: usage.cacheWriteTokens,
      reasoningTokens: usage.reasoningTokens,
    })
    .from(usage)
    .leftJoin(users, activeUserOf(usage.principal))
    .where(and(...where))
    .orderBy(desc(usage.createdAtMs), desc(usage.id))
    .limit(limit)
    .all();
}

/**
 * The provider calls of a page of runs in one query, in the order they started. The run ids
 * go in as one JSON array (json_each), since D1 binds at most 100 parameters and a page holds 200.
 */
export async function providerCallsOfRuns(db: D1Db, runs: { principal: string; runId: string }[]): Promise<ProviderCallRow[]> {
  if (runs.length === 0) return [];
  const runIds = JSON.stringify([...new Set(runs.map((r) => r.runId))]);
  const principals = JSON.stringify([...new Set(runs.map((r) => r.principal))]);
  return db
    .select()
    .from(providerCalls)
    .where(
      and(
        sql`${providerCalls.runId} in (select value from json_each(${runIds}))`,
        sql`${providerCalls.principal} in (select value from json_each(${principals}))`,
      ),
    )
    .orderBy(asc(providerCalls.createdAtMs), asc(providerCalls.attempt), asc(providerCalls.callId))
    .all();
}

/** Up to `limit` conversations, the most recently finished run first; each with its last run's model and status. */
export async function conversationsPage(db: D1Db, filter: RunsFilter, cursor: RunsCursor | undefined, limit: number) {
  const byConversation = sql`partition by ${usage.principal}, ${usage.conversationId}`;
  const latest = db.$with("latest").as(
    db
      .select({
        rowId: sql<number>`${usage.id}`.as("row_id"),
        conversationId: usage.conversationId,
        principal: usage.principal,
        teamId: usage.teamId,
        model: usage.model,
        status: usage.status,
        lastFinishedAtMs: sql<number>`${usage.createdAtMs}`.as("last_finished_at_ms"),
        // A run row from before started_at_ms was recorded counts from when it finished.
        startedAtMs: sql<number>`min(coalesce(${usage.startedAtMs}, ${usage.createdAtMs})) over (${byConversation})`.as(
          "first_started_at_ms",
        ),
        runs: sql<number>`count(*) over (${byConversation})`.as("runs"),
        inputTokens: sql<number>`sum(${usage.inputTokens}) over (${byConversation})`.as("total_input_tokens"),
        outputTokens: sql<number>`sum(${usage.outputTokens}) over (${byConversation})`.as("total_output_tokens"),
        rank: sql<number>`row_number() over (${byConversation} order by ${usage.createdAtMs} desc, ${usage.id} desc)`.as("rank"),
      })
      .from(usage)
      .where(and(...filtered(filter))),
  );
  const where: SQL[] = [eq(latest.rank, 1)];
  if (cursor) where.push(olderThan(latest.lastFinishedAtMs, latest.rowId, cursor));
  return db
    .with(latest)
    .select({
      rowId: latest.rowId,
      conversationId: latest.conversationId,
      principal: latest.principal,
      email: users.email,
      teamId: latest.teamId,
      runs: latest.runs,
      lastModel: latest.model,
      lastStatus: latest.status,
      startedAtMs: latest.startedAtMs,
      lastFinishedAtMs: latest.lastFinishedAtMs,
      inputTokens: latest.inputTokens,
      outputTokens: latest.outputTokens,
    })
    .from(latest)
    .leftJoin(users, activeUserOf(latest.principal))
    .where(and(...where))
    .orderBy(desc(latest.lastFinishedAtMs), desc(latest.rowId))
    .limit(limit)
    .all();
}

/** A user's team, removed users included: their runs stay readable by whoever could read them before. */
export async function teamOfUser(db: D1Db, id: string): Promise<{ id: string; teamId: string } | undefined> {
  return db.select({ id: users.id, teamId: users.teamId }).from(users).where(eq(users.id, id)).get();
}
