// What a finished run spent, into D1 in one batch: the run's row, its provider
// calls, and its day in the ledger (docs/hosting.md#usage). Best effort: a D1
// hiccup must not fail a turn the user already saw complete.
import { eq, lt, sql } from "drizzle-orm";
import { errorKind } from "../../core/log-safe.ts";
import type { Usage } from "../../provider/types.ts";
import { d1 } from "./db.ts";
import { activeRuns, providerCalls, usage, usageLedger } from "./schema/usage.ts";
import { usageShares } from "./usage-shares.ts";

/** A run as the D1 records copy it, read from its conversation object's own rows. */
export interface RunRecord {
  requestId: string;
  startedAtMs: number;
  calls: RunCall[];
}

/** One provider call of a run as the D1 records copy it. */
interface RunCall {
  callId: string;
  /** The model that made it (a fallback's, docs/providers.md#fallbacks); absent: the run's. */
  model?: string;
  providerType: string;
  /** The credential it used (a BYOK_MODELS key: its label); null for a model's one BYOK key and rows from before it was kept. */
  credentialId?: string | null;
  /** running, completed, cancelled or failed (the conversation's llm_calls.status). */
  status: string;
  httpStatus: number | null;
  finishReason: string | null;
  attempt: number;
  createdAtMs: number;
  ttfbMs: number | null;
  ttftMs: number | null;
  durationMs: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  /** The tokens are byok-edge's estimate (docs/hosting.md#limits); null for rows from before it was kept. */
  usageEstimated?: boolean | null;
}

export interface RunUsage {
  /** A user id, or "local". */
  principal: string;
  teamId: string | null;
  conversationId: string;
  runId: string;
  model: string;
  status: string;
  usage: Usage;
  /** What a model's share costs, from its prices (src/hosting/config/model-prices.ts); absent: 0. */
  costOf?: (model: string, usage: Usage) => number;
  /** From the conversation object's own rows; absent when they could not be read. */
  record: RunRecord | undefined;
}

export async function recordRunUsage(database: D1Database, run: RunUsage, nowMs = Date.now()): Promise<void> {
  try {
    const db = d1(database);
    const u = run.usage;
    const owner = { principal: run.principal, teamId: run.teamId };
    const day = new Date(nowMs).toISOString().slice(0, 10);
    const callRows = (run.record?.calls ?? []).map((call) => ({ ...call, model: call.model ?? run.model }));
    const calls = callRows.map((call) =>
      db
        .insert(providerCalls)
        .values({ ...call, ...owner, runId: run.runId, provider: call.providerType })
        .onConflictDoNothing(),
    );
    // The ledger charges each model what its calls used: a fallback's tokens go to the fallback.
    const ledger = usageShares(run.model, u, callRows).map((share) => {
      const tokens = tokenColumns(share.usage);
      const costUsd = run.costOf?.(share.model, share.usage) ?? 0;
      return (
        db
          .insert(usageLedger)
          // One request: the run's model's; a fallback's share carries tokens and cost, not another request.
          .values({ ...owner, ...tokens, day, model: share.model, requests: share.model === run.model ? 1 : 0, costUsd })
          .onConflictDoUpdate({
            target: [usageLedger.day, usageLedger.principal, usageLedger.model],
            set: {
              requests: sql`${usageLedger.requests} + ${share.model === run.model ? 1 : 0}`,
              inputTokens: sql`${usageLedger.inputTokens} + ${tokens.inputTokens}`,
              outputTokens: sql`${usageLedger.outputTokens} + ${tokens.outputTokens}`,
              cacheReadTokens: sql`${usageLedger.cacheReadTokens} + ${tokens.cacheReadTokens}`,
              cacheWriteTokens: sql`${usageLedger.cacheWriteTokens} + ${tokens.cacheWriteTokens}`,
              reasoningTokens: sql`${usageLedger.reasoningTokens} + ${tokens.reasoningTokens}`,
              costUsd: sql`${usageLedger.costUsd} + ${costUsd}`,
            },
          })
      );
    });
    await db.batch([
      db.insert(usage).values({
        ...owner,
        ...tokenColumns(u),
        conversationId: run.conversationId,
        runId: run.runId,
        requestId: run.record?.requestId ?? null,
        model: run.model,
        status: run.status,
        startedAtMs: run.record?.startedAtMs ?? null,
        createdAtMs: nowMs,
      }),
      ...ledger,
      ...calls,
      // No longer in progress (the metrics' active runs, docs/telemetry.md#metrics).
      db.delete(activeRuns).where(eq(activeRuns.runId, run.runId)),
    ]);
  } catch (err) {
    console.error("byok-edge: could not record usage", run.runId, errorKind(err));
  }
}

function tokenColumns(u: Usage) {
  return {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    reasoningTokens: u.reasoningTokens,
  };
}

/** The ledger's model for Codex code-mode cells (docs/hosting.md#usage): not a model name Cursor lists. */
const CODE_MODE_LEDGER_MODEL = "(code mode)";

/** One code-mode cell's end, into its day's ledger row. Best effort, as run usage is. */
export async function recordCellUsage(
  database: D1Database,
  cell: { principal: string; teamId: string | null; wallMs: number },
  nowMs = Date.now(),
): Promise<void> {
  const wallMs = Math.max(0, Math.round(cell.wallMs));
  try {
    await d1(database)
      .insert(usageLedger)
      .values({
        day: new Date(nowMs).toISOString().slice(0, 10),
        principal: cell.principal,
        teamId: cell.teamId,
        model: CODE_MODE_LEDGER_MODEL,
        cells: 1,
        cellWallMs: wallMs,
      })
      .onConflictDoUpdate({
        target: [usageLedger.day, usageLedger.principal, usageLedger.model],
        set: { cells: sql`${usageLedger.cells} + 1`, cellWallMs: sql`${usageLedger.cellWallMs} + ${wallMs}` },
      })
      .run();
  } catch (err) {
    console.error("byok-edge: could not record a code-mode cell", errorKind(err));
  }
}

/** A run began (the metrics' active runs, docs/telemetry.md#metrics); its records remove it. Never throws. */
export async function recordActiveRun(
  env: { DB: D1Database },
  run: { runId: string; principal: string; teamId: string | null; model: string; provider: string },
): Promise<void> {
  try {
    await d1(env.DB)
      .insert(activeRuns)
      .values({ ...run, startedAtMs: Date.now() })
      .onConflictDoNothing()
      .run();
  } catch (err) {
    console.error("byok-edge: could not record a run as active", run.runId, errorKind(err));
  }
}

/** Runs recorded as active more than a day ago are over whatever happened to them (a crash, a lost write); the daily cron removes them. */
export async function pruneActiveRuns(env: { DB: D1Database }, nowMs: number): Promise<void> {
  await d1(env.DB)
    .delete(activeRuns)
    .where(lt(activeRuns.startedAtMs, nowMs - 24 * 3_600_000))
    .run();
}
