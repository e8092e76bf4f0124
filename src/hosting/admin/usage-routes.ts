// GET /api/v1/usage: token sums from the usage ledger per day, user or model
// (docs/hosting.md#usage-api). A member and `local` see their own, an admin their
// team's, the operator everyone's (narrowed by team_id=).
import { createRoute, z } from "@hono/zod-openapi";
import type { Principal } from "../auth/principal.ts";
import { AppError } from "../../core/errors.ts";
import { d1 } from "../store/db.ts";
import { teamById } from "../store/team-rows.ts";
import { type UsageGroup, type UsageScope, usageTotals } from "../store/usage-report.ts";
import { teamReach } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { BEARER, errorResponses, json } from "./schemas.ts";
import { MAX_RANGE_DAYS, usageRange } from "./usage-range.ts";

const DayOrTime = (which: string) =>
  z
    .string()
    .max(40)
    .optional()
    .openapi({
      description: `ISO day or timestamp, read as its UTC day, included; default: ${which}. At most ${MAX_RANGE_DAYS} days in all.`,
      example: "2026-05-01",
    });

const UsageQuery = z.object({
  from: DayOrTime("the first day of the current UTC month (of `to`'s month when `to` is given)"),
  to: DayOrTime("today (UTC)"),
  group_by: z.enum(["day", "user", "model"]).default("day").openapi({ description: "One row per UTC day, user id or model name" }),
  team_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: "Only this team's usage (the operator; others may name only their own team)" }),
});

const UsageRow = z
  .object({
    day: z.string().optional().openapi({ example: "2026-05-01" }),
    user_id: z.string().optional().openapi({ description: "A user id, or local for the single-user principal" }),
    email: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: "With group_by=user: the user's email; null for local and removed users" }),
    model: z.string().optional(),
    requests: z.int(),
    input_tokens: z.int(),
    output_tokens: z.int(),
    cache_read_tokens: z.int(),
    cache_write_tokens: z.int(),
    reasoning_tokens: z.int(),
    cost_usd: z.number(),
    cells: z.int().openapi({ description: 'Codex code-mode cells run (their row\'s model is "(code mode)")' }),
    cell_wall_ms: z.int().openapi({ description: "Their wall time, Execute to the cell's end, in ms" }),
  })
  .openapi("UsageRow");

const UsageSchema = z
  .object({ from: z.string(), to: z.string(), group_by: z.enum(["day", "user", "model"]), rows: z.array(UsageRow) })
  .openapi("Usage");

const GROUP_FIELD = { day: "day", user: "user_id", model: "model" } as const satisfies Record<UsageGroup, string>;

export const usageRoutes = adminRoutes();

usageRoutes.openapi(
  createRoute({
    method: "get",
    path: "/usage",
    summary: "Tokens used per day, user or model: own (members), the team's (admins), all (operator)",
    security: BEARER,
    request: { query: UsageQuery },
    responses: { 200: json(UsageSchema, "Sums over the range, ordered by the group"), ...errorResponses(404) },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const range = usageRange(query, Date.now());
    const db = d1(c.env.DB);
    const scope = await scopeOf(c.var.principal, query.team_id, (id) => teamById(db, id));
    const totals = await usageTotals(db, scope, range, query.group_by);
    const rows = totals.map(({ key, email, ...t }) => ({
      [GROUP_FIELD[query.group_by]]: key,
      ...(query.group_by === "user" && { email }),
      requests: t.requests,
      input_tokens: t.inputTokens,
      output_tokens: t.outputTokens,
      cache_read_tokens: t.cacheReadTokens,
      cache_write_tokens: t.cacheWriteTokens,
      reasoning_tokens: t.reasoningTokens,
      cost_usd: t.costUsd,
      cells: t.cells,
      cell_wall_ms: t.cellWallMs,
    }));
    return c.json({ ...range, group_by: query.group_by, rows }, 200);
  },
);

/** Whose rows the caller reads; a team_id outside the caller's reach is not_found, like every other id. */
export async function scopeOf(
  principal: Principal,
  teamId: string | undefined,
  team: (id: string) => Promise<unknown>,
): Promise<UsageScope> {
  if (teamId !== undefined) {
    if (teamReach(principal, teamId) === "none" || !(await team(teamId))) throw new AppError("not_found", `team ${teamId} not found`);
  }
  if (principal.kind === "operator") return teamId === undefined ? { all: true } : { teamId };
  if (principal.kind === "user" && principal.role === "admin") return { teamId: principal.teamId };
  return { principal: principal.id };
}
