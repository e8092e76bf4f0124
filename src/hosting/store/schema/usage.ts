// D1 tables of what was spent: one row per run and per provider call (status,
// timings, token counts; never prompt or response text), and the ledger summed
// per principal, model and UTC day. `principal` is a user id, or "local" for
// the single-user principal (src/hosting/auth/principal.ts).
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** One row per finished run (the name predates hosting; it is the run record). */
export const usage = sqliteTable(
  "usage",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    principal: text("principal").notNull(),
    /** The principal's team; null for "local". */
    teamId: text("team_id"),
    conversationId: text("conversation_id").notNull(),
    runId: text("run_id").notNull(),
    requestId: text("request_id"),
    model: text("model").notNull(),
    status: text("status").notNull(),
    /** When the run started; created_at_ms is when it finished (both null-free for new rows). */
    startedAtMs: integer("started_at_ms"),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    cacheReadTokens: integer("cache_read_tokens").notNull(),
    cacheWriteTokens: integer("cache_write_tokens").notNull(),
    reasoningTokens: integer("reasoning_tokens").notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
  },
  (t) => [
    index("usage_by_principal").on(t.principal, t.createdAtMs),
    index("usage_by_team").on(t.teamId, t.createdAtMs),
    // The operator's runs and conversations, newest first over every team (docs/hosting.md#runs-api).
    index("usage_by_time").on(t.createdAtMs, t.id),
    // The metrics' active runs ask whether a run's record exists (docs/telemetry.md#metrics).
    index("usage_by_run").on(t.runId),
  ],
);

/** One row per provider attempt, copied from the conversation object's llm_calls when its run ends. */
export const providerCalls = sqliteTable(
  "provider_calls",
  {
    callId: text("call_id").primaryKey(),
    runId: text("run_id").notNull(),
    principal: text("principal").notNull(),
    teamId: text("team_id"),
    /** The model's name as Cursor shows it. */
    model: text("model").notNull(),
    provider: text("provider").notNull(),
    /** The credential (a BYOK_MODELS key: its label) the attempt used, for a model with several keys or a stored one; null otherwise. */
    credentialId: text("credential_id"),
    status: text("status").notNull(),
    httpStatus: integer("http_status"),
    finishReason: text("finish_reason"),
    attempt: integer("attempt").notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
    ttfbMs: integer("ttfb_ms"),
    ttftMs: integer("ttft_ms"),
    durationMs: integer("duration_ms"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    cacheReadTokens: integer("cache_read_tokens"),
    cacheWriteTokens: integer("cache_write_tokens"),
    reasoningTokens: integer("reasoning_tokens"),
    /** The tokens are byok-edge's estimate: the provider reported no usage (docs/hosting.md#limits). */
    usageEstimated: integer("usage_estimated", { mode: "boolean" }),
  },
  (t) => [index("provider_calls_by_run").on(t.runId), index("provider_calls_by_principal").on(t.principal, t.createdAtMs)],
);

/** Totals per principal, model and UTC day; what the usage API and the monthly budget read. */
export const usageLedger = sqliteTable(
  "usage_ledger",
  {
    /** UTC day, `YYYY-MM-DD`. */
    day: text("day").notNull(),
    principal: text("principal").notNull(),
    teamId: text("team_id"),
    model: text("model").notNull(),
    requests: integer("requests").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    cacheReadTokens: integer("cache_read_tokens").notNull().default(0),
    cacheWriteTokens: integer("cache_write_tokens").notNull().default(0),
    reasoningTokens: integer("reasoning_tokens").notNull().default(0),
    costUsd: real("cost_usd").notNull().default(0),
    /** Code-mode cells run (on the CODE_MODE_LEDGER_MODEL row) and their wall time from Execute to the isolate's stop. */
    cells: integer("cells").notNull().default(0),
    cellWallMs: integer("cell_wall_ms").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.principal, t.model] }), index("usage_ledger_by_team").on(t.teamId, t.day)],
);

/**
 * The runs in progress, for the `byok_active_runs` gauge of GET /metrics (docs/telemetry.md#metrics):
 * a row when a run starts, gone when its records are written. A row a crash left behind is
 * removed by the run's recovery, and rows older than a day are not counted.
 */
export const activeRuns = sqliteTable("active_runs", {
  runId: text("run_id").primaryKey(),
  principal: text("principal").notNull(),
  teamId: text("team_id"),
  model: text("model").notNull(),
  provider: text("provider").notNull(),
  startedAtMs: integer("started_at_ms").notNull(),
});
