// GET /api/v1/teams/{team_id}/budget: the team's monthly token budget and how much of
// the current UTC month it has used, read from the team's budget object, so these are
// the very figures its refusals use (docs/hosting.md#limits).
import { createRoute, z } from "@hono/zod-openapi";
import { teamBudgetName } from "../../core/object-names.ts";
import { AppError } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import { d1 } from "../store/db.ts";
import { teamById } from "../store/team-rows.ts";
import { teamReach, within } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { BEARER, errorResponses, idParam, json } from "./schemas.ts";

const BudgetSchema = z
  .object({
    team_id: z.string(),
    month: z.string().openapi({ description: "The current month, UTC", example: "2026-05" }),
    monthly_token_budget: z.int().nullable().openapi({ description: "Input + output tokens a month; null: no budget" }),
    used_tokens: z.int().openapi({ description: "Input + output tokens of the month's finished provider calls" }),
    reserved_tokens: z.int().openapi({ description: "Tokens held for provider calls in flight" }),
    remaining_tokens: z.int().nullable().openapi({ description: "What the next calls may reserve; null when there is no budget" }),
  })
  .openapi("Budget");

export const budgetRoutes = adminRoutes();

budgetRoutes.openapi(
  createRoute({
    method: "get",
    path: "/teams/{team_id}/budget",
    summary: "The team's monthly token budget and what this month has used (the operator, the team's admins and members)",
    security: BEARER,
    request: { params: idParam("team_id") },
    responses: { 200: json(BudgetSchema, "The month's figures"), ...errorResponses(404, 503) },
  }),
  async (c) => {
    const { team_id } = c.req.valid("param");
    const team = within(await teamById(d1(c.env.DB), team_id), (t) => teamReach(c.var.principal, t.id), "view", `team ${team_id}`);
    const stub = c.env.TEAM_BUDGET.getByName(teamBudgetName(team.id));
    const figures = await stub.figures(team.id).catch((err: unknown) => {
      console.error("byok-edge: team budget read failed:", errorKind(err));
      throw new AppError("unavailable", "the team's budget could not be read just now; try again");
    });
    const budget = team.monthlyTokenBudget;
    return c.json(
      {
        team_id: team.id,
        month: figures.month,
        monthly_token_budget: budget,
        used_tokens: figures.used,
        reserved_tokens: figures.reserved,
        remaining_tokens: budget === null ? null : Math.max(0, budget - figures.used - figures.reserved),
      },
      200,
    );
  },
);
