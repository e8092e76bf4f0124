// GET /api/v1/overview (docs/dashboard.md#overview): the dashboard's first page after sign-in.
// Today's runs and how many failed, time to first token per model over the range (p50, p95),
// today's slowest and failing provider calls (with their run ids, to open them in Runs), and for
// admins and the operator the users who spent most. Scope as the usage API: own, team, all.
import { createRoute, z } from "@hono/zod-openapi";
import { d1 } from "../store/db.ts";
import { overviewOf } from "../store/overview-rows.ts";
import { teamById } from "../store/team-rows.ts";
import { adminRoutes } from "./admin-context.ts";
import { usageRange } from "./usage-range.ts";
import { scopeOf } from "./usage-routes.ts";
import { BEARER, errorResponses, iso, json, Timestamp } from "./schemas.ts";

const DAY_MS = 86_400_000;

const Call = z.object({
  id: z.string(),
  run_id: z.string(),
  model: z.string(),
  status: z.string(),
  http_status: z.int().nullable(),
  duration_ms: z.int().nullable(),
  ttft_ms: z.int().nullable(),
  started_at: Timestamp,
});

const OverviewSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    today: z.object({ runs: z.int(), failed: z.int(), error_rate: z.number().openapi({ description: "failed ÷ runs; 0 without runs" }) }),
    ttft_by_model: z.array(z.object({ model: z.string(), calls: z.int(), p50_ms: z.number(), p95_ms: z.number() })),
    slowest_calls: z.array(Call).openapi({ description: "Today's provider calls that took longest, slowest first" }),
    failing_calls: z.array(Call).openapi({ description: "Today's failed provider calls, newest first" }),
    top_users: z
      .array(z.object({ user_id: z.string(), email: z.string().nullable(), cost_usd: z.number(), requests: z.int() }))
      .nullable()
      .openapi({ description: "Who spent most over the range, for admins (their team) and the operator; null for members" }),
  })
  .openapi("Overview");

const OverviewQuery = z.object({
  from: z
    .string()
    .optional()
    .openapi({ description: "First day of the range for time to first token and top users (default: 6 days ago)" }),
  to: z.string().optional().openapi({ description: "Last day, included (default: today)" }),
  team_id: z.string().max(100).optional().openapi({ description: "Operator: one team's figures" }),
});

export const overviewRoutes = adminRoutes();

overviewRoutes.openapi(
  createRoute({
    method: "get",
    path: "/overview",
    summary: "The dashboard's overview: today's runs and errors, time to first token per model, slow and failing calls, top users",
    security: BEARER,
    request: { query: OverviewQuery },
    responses: { 200: json(OverviewSchema, "The overview"), ...errorResponses(404) },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const now = Date.now();
    const range = usageRange({ from: query.from ?? new Date(now - 6 * DAY_MS).toISOString().slice(0, 10), to: query.to }, now);
    const db = d1(c.env.DB);
    const principal = c.var.principal;
    const scope = await scopeOf(principal, query.team_id, (id) => teamById(db, id));
    const seesUsers = principal.kind === "operator" || (principal.kind === "user" && principal.role === "admin");
    const dayStartMs = Date.parse(`${new Date(now).toISOString().slice(0, 10)}T00:00:00Z`);
    const o = await overviewOf(db, scope, range, dayStartMs, seesUsers);
    const call = (row: (typeof o.slowest)[number]) => ({
      id: row.callId,
      run_id: row.runId,
      model: row.model,
      status: row.status,
      http_status: row.httpStatus,
      duration_ms: row.durationMs,
      ttft_ms: row.ttftMs,
      started_at: iso(row.createdAtMs),
    });
    return c.json(
      {
        ...range,
        today: { ...o.today, error_rate: o.today.runs === 0 ? 0 : o.today.failed / o.today.runs },
        ttft_by_model: o.ttft.map((t) => ({ model: t.model, calls: t.calls, p50_ms: t.p50Ms, p95_ms: t.p95Ms })),
        slowest_calls: o.slowest.map(call),
        failing_calls: o.failing.map(call),
        top_users: seesUsers
          ? o.topUsers.map((u) => ({ user_id: u.principal, email: u.email, cost_usd: u.costUsd, requests: u.requests }))
          : null,
      },
      200,
    );
  },
);
