// Teams: the operator creates them; the operator and a team's admins change them;
// GET lists every team for the operator and the caller's own team for anyone else.
// Each write is recorded in the audit log (team.create, team.rename, team.budget, team.cell_cpu).
import { createRoute, z } from "@hono/zod-openapi";
import { AppError } from "../../core/errors.ts";
import { d1 } from "../store/db.ts";
import { LOCAL_TEAM_NAME } from "../store/local-account.ts";
import { forgetCachedLimits } from "../limits/limits-cache.ts";
import { allTeams, createTeam, type TeamPatch, type TeamRow, teamById, updateTeam } from "../store/team-rows.ts";
import { requireOperator, teamReach, within } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { auditEntries, type Recorded, recordsDenial } from "./audit-context.ts";
import { BEARER, displayName, errorResponses, idParam, iso, json, jsonBody, Timestamp } from "./schemas.ts";

const Name = displayName("Platform");
const Budget = z
  .int()
  .min(0)
  .nullable()
  .openapi({ description: "Input + output tokens per calendar month (UTC); null: no budget", example: 50_000_000 });

/** Workers' CPU limit per invocation is at most 5 minutes. */
const CellCpu = z.int().min(1_000).max(300_000).nullable().openapi({
  description: "CPU milliseconds each code-mode cell of the team's members may use; null: the default 30000",
  example: 60_000,
});

const TeamSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    monthly_token_budget: z.int().nullable(),
    code_mode_cpu_ms: z.int().nullable(),
    created_at: Timestamp,
  })
  .openapi("Team");

const CreateTeam = z
  .strictObject({ name: Name, monthly_token_budget: Budget.optional(), code_mode_cpu_ms: CellCpu.optional() })
  .openapi("CreateTeam");
const PatchTeam = z
  .strictObject({ name: Name.optional(), monthly_token_budget: Budget.optional(), code_mode_cpu_ms: CellCpu.optional() })
  .openapi("PatchTeam");

export const teamRoutes = adminRoutes();

teamRoutes.openapi(
  createRoute({
    method: "post",
    path: "/teams",
    summary: "Create a team (operator)",
    security: BEARER,
    middleware: [recordsDenial("team.create", { kind: "team" })],
    request: { body: jsonBody(CreateTeam) },
    responses: { 201: json(TeamSchema, "The new team"), ...errorResponses(403, 409, 501) },
  }),
  async (c) => {
    requireOperator(c.var.principal, c.env);
    const body = c.req.valid("json");
    refuseReservedName(body.name);
    const now = Date.now();
    const team = { name: body.name, monthlyTokenBudget: body.monthly_token_budget ?? null, codeModeCpuMs: body.code_mode_cpu_ms ?? null };
    const created = await createTeam(d1(c.env.DB), team, now, (row) =>
      auditEntries(c, now, [
        {
          action: "team.create",
          target: teamTarget(row),
          teamId: row.id,
          details: { monthly_token_budget: row.monthlyTokenBudget, code_mode_cpu_ms: row.codeModeCpuMs },
        },
      ]),
    );
    if ("conflict" in created) throw new AppError("already_exists", `a team named "${body.name}" already exists`);
    return c.json(teamJson(created.team), 201);
  },
);

teamRoutes.openapi(
  createRoute({
    method: "get",
    path: "/teams",
    summary: "List teams: all for the operator, the caller's own otherwise",
    security: BEARER,
    responses: { 200: json(z.object({ teams: z.array(TeamSchema) }), "The teams the caller sees"), ...errorResponses() },
  }),
  async (c) => {
    const principal = c.var.principal;
    const db = d1(c.env.DB);
    if (principal.kind === "operator") return c.json({ teams: (await allTeams(db)).map(teamJson) }, 200);
    const own = principal.kind === "user" ? await teamById(db, principal.teamId) : undefined;
    return c.json({ teams: own ? [teamJson(own)] : [] }, 200);
  },
);

teamRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/teams/{team_id}",
    summary: "Rename a team or change its budget or code-mode CPU per cell (operator, the team's admins)",
    security: BEARER,
    middleware: [recordsDenial(teamActions, { kind: "team", param: "team_id" })],
    request: { params: idParam("team_id"), body: jsonBody(PatchTeam) },
    responses: { 200: json(TeamSchema, "The team"), ...errorResponses(403, 404, 409) },
  }),
  async (c) => {
    const { team_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = d1(c.env.DB);
    const team = within(await teamById(db, team_id), (t) => teamReach(c.var.principal, t.id), "manage", `team ${team_id}`);
    if (body.name !== undefined) refuseReservedName(body.name);
    const patch: TeamPatch = {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.monthly_token_budget !== undefined && { monthlyTokenBudget: body.monthly_token_budget }),
      ...(body.code_mode_cpu_ms !== undefined && { codeModeCpuMs: body.code_mode_cpu_ms }),
    };
    const now = Date.now();
    const recorded: Recorded[] = teamActions(body).map((action) => ({
      action,
      target: teamTarget(team),
      teamId: team.id,
      details: teamChange(action, team, body),
    }));
    const [first, ...rest] = recorded;
    const updated = await updateTeam(db, team.id, patch, now, first ? auditEntries(c, now, [first, ...rest]) : []);
    forgetCachedLimits(); // a new budget holds here at once, elsewhere within 5 s (docs/hosting.md#limits)
    if ("conflict" in updated) throw new AppError("already_exists", `a team named "${body.name}" already exists`);
    return c.json(teamJson(updated.team), 200);
  },
);

/** What a PATCH of a team records: one action per thing it changes. */
function teamActions(body: {
  name?: unknown;
  monthly_token_budget?: unknown;
  code_mode_cpu_ms?: unknown;
}): ("team.rename" | "team.budget" | "team.cell_cpu")[] {
  return [
    ...(body.name !== undefined ? (["team.rename"] as const) : []),
    ...(body.monthly_token_budget !== undefined ? (["team.budget"] as const) : []),
    ...(body.code_mode_cpu_ms !== undefined ? (["team.cell_cpu"] as const) : []),
  ];
}

/** What one recorded team change was, from what to what. */
function teamChange(action: ReturnType<typeof teamActions>[number], team: TeamRow, body: z.infer<typeof PatchTeam>) {
  if (action === "team.rename") return { from: team.name, to: body.name };
  if (action === "team.budget") return { from: team.monthlyTokenBudget, to: body.monthly_token_budget };
  return { from: team.codeModeCpuMs, to: body.code_mode_cpu_ms };
}

function teamTarget(team: TeamRow) {
  return { kind: "team", id: team.id, name: team.name };
}

function teamJson(team: TeamRow) {
  return {
    id: team.id,
    name: team.name,
    monthly_token_budget: team.monthlyTokenBudget,
    code_mode_cpu_ms: team.codeModeCpuMs,
    created_at: iso(team.createdAtMs),
  };
}

/** The single user's own team has this name, though no route lists it (docs/hosting.md#the-single-user). */
function refuseReservedName(name: string): void {
  if (name === LOCAL_TEAM_NAME) throw new AppError("already_exists", `the team name "${name}" is reserved for the single user's own team`);
}
