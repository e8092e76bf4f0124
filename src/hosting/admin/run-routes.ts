// GET /api/v1/runs: recent runs, newest first, each with its provider calls' status,
// timings and token counts, never prompt or response text (docs/hosting.md#runs-api).
// Who sees what is the usage API's rule: a member and `local` their own, an admin
// their team's, the operator everyone's.
import { createRoute, z } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal.ts";
import { AppError } from "../../core/errors.ts";
import { d1, type D1Db } from "../store/db.ts";
import { type ProviderCallRow, providerCallsOfRuns, type RunRow, type RunsFilter, runsPage, teamOfUser } from "../store/run-rows.ts";
import { teamById } from "../store/team-rows.ts";
import { userReach, within } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { decodeCursor, encodeCursor } from "./run-cursor.ts";
import { BEARER, errorResponses, iso, json, Timestamp } from "./schemas.ts";
import { scopeOf } from "./usage-routes.ts";

const MAX_PAGE = 200;

/** The query parameters the runs and conversations lists share. */
export const PageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE)
    .default(50)
    .openapi({ description: `Rows per page, 1 to ${MAX_PAGE}`, example: 50 }),
  before: z.string().min(1).max(100).optional().openapi({ description: "The next_before of the previous page: the rows after it" }),
  user_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: "Only this user's (a user id, or local); within what the caller sees" }),
  team_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: "Only this team's (the operator; others may name only their own team)" }),
});

const RunsQuery = PageQuery.extend({
  conversation_id: z.string().min(1).max(200).optional().openapi({ description: "Only this conversation's runs" }),
});

export const NextBefore = z.string().nullable().openapi({ description: "Pass as `before` for the next page; null on the last page" });

const Tokens = {
  input_tokens: z.int(),
  output_tokens: z.int(),
  cache_read_tokens: z.int(),
  cache_write_tokens: z.int(),
  reasoning_tokens: z.int(),
};

const ProviderCallSchema = z
  .object({
    id: z.string(),
    provider: z.string().openapi({ example: "openai-chat" }),
    model: z.string().openapi({ description: "The model's name as Cursor shows it" }),
    credential_id: z.string().nullable().openapi({
      description:
        "The credential the attempt used (a BYOK_MODELS key: its label, `<model>#0` its own, `<model>#<i + 1>` for keys[i]); null: a BYOK_MODELS model's one key",
    }),
    status: z.string().openapi({ example: "completed" }),
    http_status: z.int().nullable(),
    finish_reason: z.string().nullable(),
    attempt: z.int(),
    started_at: Timestamp,
    ttfb_ms: z.int().nullable(),
    ttft_ms: z.int().nullable(),
    duration_ms: z.int().nullable(),
    // Null for a call the provider refused (it counts nothing), and for calls recorded before every accepted call counted.
    input_tokens: z.int().nullable(),
    output_tokens: z.int().nullable(),
    cache_read_tokens: z.int().nullable(),
    cache_write_tokens: z.int().nullable(),
    reasoning_tokens: z.int().nullable(),
    usage_estimated: z.boolean().openapi({
      description: "True: the provider reported no usage (the call was cancelled, stalled or cut), so the tokens are byok-edge's estimate",
    }),
  })
  .openapi("ProviderCall");

const RunSchema = z
  .object({
    id: z.string().openapi({ description: "The run id" }),
    request_id: z.string().nullable(),
    conversation_id: z.string(),
    user_id: z.string().openapi({ description: "A user id, or local for the single-user principal" }),
    email: z.string().nullable().openapi({ description: "null for local and removed users" }),
    team_id: z.string().nullable(),
    model: z.string(),
    status: z.string().openapi({ example: "completed" }),
    started_at: Timestamp.nullable(),
    finished_at: Timestamp,
    duration_ms: z.int().nullable(),
    ...Tokens,
    provider_calls: z.array(ProviderCallSchema),
  })
  .openapi("Run");

const RunsSchema = z.object({ runs: z.array(RunSchema), next_before: NextBefore }).openapi("Runs");

export const runRoutes = adminRoutes();

runRoutes.openapi(
  createRoute({
    method: "get",
    path: "/runs",
    summary: "Recent runs with their provider calls: own (members), the team's (admins), all (operator)",
    security: BEARER,
    request: { query: RunsQuery },
    responses: { 200: json(RunsSchema, "A page of runs, newest first"), ...errorResponses(404) },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const cursor = decodeCursor(query.before);
    const db = d1(c.env.DB);
    const filter = {
      ...(await visibleRuns(db, c.var.principal, query)),
      ...(query.conversation_id && { conversationId: query.conversation_id }),
    };
    // One row more than the page tells whether another page follows.
    const rows = await runsPage(db, filter, cursor, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const calls = await providerCallsOfRuns(db, page);
    const callsOf = Map.groupBy(calls, (call) => runKey(call.principal, call.runId));
    const last = page.at(-1);
    return c.json(
      {
        runs: page.map((run) => runJson(run, callsOf.get(runKey(run.principal, run.runId)) ?? [])),
        next_before: rows.length > query.limit && last ? encodeCursor({ atMs: last.finishedAtMs, rowId: last.rowId }) : null,
      },
      200,
    );
  },
);

/** What the caller may read, narrowed by team_id and user_id; either outside its reach is not_found. */
export async function visibleRuns(db: D1Db, principal: Principal, query: { team_id?: string; user_id?: string }): Promise<RunsFilter> {
  const scope = await scopeOf(principal, query.team_id, (id) => teamById(db, id));
  const filter: RunsFilter = "principal" in scope ? { principal: scope.principal } : "teamId" in scope ? { teamId: scope.teamId } : {};
  const userId = query.user_id;
  if (userId === undefined) return filter;
  if (userId === "local") {
    if (principal.kind !== "operator" && principal.kind !== "local") throw new AppError("not_found", "user local not found");
  } else {
    within(await teamOfUser(db, userId), (user) => userReach(principal, user), "view", `user ${userId}`);
  }
  return { ...filter, principal: userId };
}

const runKey = (principal: string, runId: string) => `${principal}\n${runId}`;

function runJson(run: RunRow, calls: ProviderCallRow[]) {
  return {
    id: run.runId,
    request_id: run.requestId,
    conversation_id: run.conversationId,
    user_id: run.principal,
    email: run.email,
    team_id: run.teamId,
    model: run.model,
    status: run.status,
    started_at: iso(run.startedAtMs),
    finished_at: iso(run.finishedAtMs),
    duration_ms: run.startedAtMs === null ? null : Math.max(0, run.finishedAtMs - run.startedAtMs),
    input_tokens: run.inputTokens,
    output_tokens: run.outputTokens,
    cache_read_tokens: run.cacheReadTokens,
    cache_write_tokens: run.cacheWriteTokens,
    reasoning_tokens: run.reasoningTokens,
    provider_calls: calls.map((call) => ({
      id: call.callId,
      provider: call.provider,
      model: call.model,
      credential_id: call.credentialId,
      status: call.status,
      http_status: call.httpStatus,
      finish_reason: call.finishReason,
      attempt: call.attempt,
      started_at: iso(call.createdAtMs),
      ttfb_ms: call.ttfbMs,
      ttft_ms: call.ttftMs,
      duration_ms: call.durationMs,
      input_tokens: call.inputTokens,
      output_tokens: call.outputTokens,
      cache_read_tokens: call.cacheReadTokens,
      cache_write_tokens: call.cacheWriteTokens,
      reasoning_tokens: call.reasoningTokens,
      usage_estimated: call.usageEstimated === true,
    })),
  };
}
