// The figures of GET /metrics (docs/telemetry.md#metrics), summed in D1 from the run and provider
// call records and the ledger on each scrape, so they survive isolate and object restarts and
// agree with the usage API. Each query groups by team, model and provider; histograms count
// rows at or below each bucket's bound.
import { sql } from "drizzle-orm";
import type { D1Db } from "./db.ts";

/** Time to first token, in seconds: a bucket's upper bound. */
export const TTFT_BUCKETS_S = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];
/** Run duration, in seconds. */
export const RUN_BUCKETS_S = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800];

export interface Labels {
  team: string;
  model: string;
  provider: string;
}

interface RunFigures extends Labels {
  status: string;
  runs: number;
  durationCount: number;
  durationSumS: number;
  /** Cumulative counts per RUN_BUCKETS_S bound. */
  durationBuckets: number[];
}

export interface CallFigures extends Labels {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  rateLimited: number;
  refused: number;
  providerErrors: number;
  badRequests: number;
  noAnswer: number;
  ttftCount: number;
  ttftSumS: number;
  ttftBuckets: number[];
}

interface CostFigures {
  team: string;
  model: string;
  costUsd: number;
}

export interface MetricsFigures {
  runs: RunFigures[];
  calls: CallFigures[];
  costs: CostFigures[];
  active: (Labels & { runs: number })[];
}

const bucketSums = (column: string, boundsMs: number[]) =>
  sql.raw(boundsMs.map((ms, i) => `SUM(CASE WHEN ${column} <= ${ms} THEN 1 ELSE 0 END) AS b${i}`).join(", "));

const bucketsOf = (row: Record<string, unknown>, count: number) => Array.from({ length: count }, (_, i) => Number(row[`b${i}`] ?? 0));

/** Everything /metrics shows: four D1 queries at once (raw statements cannot share a batch). */
export async function metricsFigures(db: D1Db, nowMs: number): Promise<MetricsFigures> {
  const duration = "(u.created_at_ms - u.started_at_ms)";
  const [runs, calls, costs, active] = await Promise.all([
    db.all<Record<string, unknown>>(sql`
      SELECT COALESCE(u.team_id, 'local') AS team, u.model AS model,
        COALESCE((SELECT p.provider FROM provider_calls p WHERE p.run_id = u.run_id ORDER BY p.created_at_ms LIMIT 1), 'none') AS provider,
        u.status AS status, COUNT(*) AS runs,
        SUM(CASE WHEN u.started_at_ms IS NOT NULL THEN 1 ELSE 0 END) AS duration_count,
        COALESCE(SUM(CASE WHEN u.started_at_ms IS NOT NULL THEN ${sql.raw(duration)} ELSE 0 END), 0) AS duration_sum_ms,
        ${bucketSums(
          `CASE WHEN u.started_at_ms IS NOT NULL THEN ${duration} END`,
          RUN_BUCKETS_S.map((s) => s * 1000),
        )}
      FROM usage u GROUP BY 1, 2, 3, 4`),
    db.all<Record<string, unknown>>(sql`
      SELECT COALESCE(team_id, 'local') AS team, model, provider, COUNT(*) AS calls,
        COALESCE(SUM(input_tokens), 0) AS input_tokens, COALESCE(SUM(output_tokens), 0) AS output_tokens,
        COALESCE(SUM(cache_read_tokens), 0) AS cache_read_tokens, COALESCE(SUM(cache_write_tokens), 0) AS cache_write_tokens,
        COALESCE(SUM(reasoning_tokens), 0) AS reasoning_tokens,
        SUM(CASE WHEN status = 'failed' AND http_status = 429 THEN 1 ELSE 0 END) AS rate_limited,
        SUM(CASE WHEN status = 'failed' AND http_status IN (401, 403) THEN 1 ELSE 0 END) AS refused,
        SUM(CASE WHEN status = 'failed' AND http_status >= 500 THEN 1 ELSE 0 END) AS provider_errors,
        SUM(CASE WHEN status = 'failed' AND http_status >= 400 AND http_status < 500 AND http_status NOT IN (401, 403, 429) THEN 1 ELSE 0 END) AS bad_requests,
        SUM(CASE WHEN status = 'failed' AND (http_status IS NULL OR http_status < 400) THEN 1 ELSE 0 END) AS no_answer,
        SUM(CASE WHEN ttft_ms IS NOT NULL THEN 1 ELSE 0 END) AS ttft_count, COALESCE(SUM(ttft_ms), 0) AS ttft_sum_ms,
        ${bucketSums(
          "ttft_ms",
          TTFT_BUCKETS_S.map((s) => s * 1000),
        )}
      FROM provider_calls GROUP BY 1, 2, 3`),
    db.all<Record<string, unknown>>(sql`
      SELECT COALESCE(team_id, 'local') AS team, model, SUM(cost_usd) AS cost_usd FROM usage_ledger GROUP BY 1, 2`),
    // A run whose records are written is over even if its row was left (written after them, or by a crash).
    db.all<Record<string, unknown>>(sql`
      SELECT COALESCE(a.team_id, 'local') AS team, a.model AS model, a.provider AS provider, COUNT(*) AS runs
      FROM active_runs a
      WHERE a.started_at_ms > ${nowMs - 24 * 3_600_000} AND NOT EXISTS (SELECT 1 FROM usage u WHERE u.run_id = a.run_id)
      GROUP BY 1, 2, 3`),
  ]);
  const labels = (r: Record<string, unknown>): Labels => ({ team: String(r.team), model: String(r.model), provider: String(r.provider) });
  const n = (v: unknown) => Number(v ?? 0);
  return {
    runs: runs.map((r) => ({
      ...labels(r),
      status: String(r.status),
      runs: n(r.runs),
      durationCount: n(r.duration_count),
      durationSumS: n(r.duration_sum_ms) / 1000,
      durationBuckets: bucketsOf(r, RUN_BUCKETS_S.length),
    })),
    calls: calls.map((r) => ({
      ...labels(r),
      calls: n(r.calls),
      inputTokens: n(r.input_tokens),
      outputTokens: n(r.output_tokens),
      cacheReadTokens: n(r.cache_read_tokens),
      cacheWriteTokens: n(r.cache_write_tokens),
      reasoningTokens: n(r.reasoning_tokens),
      rateLimited: n(r.rate_limited),
      refused: n(r.refused),
      providerErrors: n(r.provider_errors),
      badRequests: n(r.bad_requests),
      noAnswer: n(r.no_answer),
      ttftCount: n(r.ttft_count),
      ttftSumS: n(r.ttft_sum_ms) / 1000,
      ttftBuckets: bucketsOf(r, TTFT_BUCKETS_S.length),
    })),
    costs: costs.map((r) => ({ team: String(r.team), model: String(r.model), costUsd: n(r.cost_usd) })),
    active: active.map((r) => ({ ...labels(r), runs: n(r.runs) })),
  };
}
