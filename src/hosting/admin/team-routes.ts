// Teams: the operator creates them; the operator and a team's admins change them;
// GET lists every team for the operator and the caller's own team for anyone else.
// Each write is recorded in the audit log (team.create, team.rename, team.budget, team.cell_cpu,
// team.sso for its sign-on settings: domains, default role, token lifetime).
import { createRoute, z } from "@hono/zod-openapi";
import type { SQL } from "drizzle-orm";
import { AppError } from "../../core/errors.ts";
import { type D1Db, d1 } from "../store/db.ts";
import { domainsOfTeam, domainsOfTeams, domainTakenElsewhere, replaceDomains } from "../store/sign-on-rows.ts";
import { LOCAL_TEAM_NAME } from "../store/local-account.ts";
import { forgetCachedLimits } from "../limits/limits-cache.ts";
import { allTeams, createTeam, type TeamPatch, type TeamRow, teamById, updateTeam } from "../store/team-rows.ts";
import { requireOperator, teamReach, within } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { auditEntries, type Recorded, recordsDenial } from "./audit-context.ts";
import { forgetTelemetryTargets } from "../config/telemetry-targets.ts";
import { checkOtlp, OtlpSetting, OtlpShown, otlpJson, otlpNeedsKey, otlpPatch } from "./team-otlp.ts";
import { withTeamDataKey } from "../keys/team-data-key.ts";
import { stillSealedUnder } from "../store/data-key-rows.ts";
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

/** A DNS name of at least two labels, lower-cased: what follows the @ of an email. */
const Domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "must be a domain such as acme.com");
const SsoDomains = z
  .array(Domain)
  .max(50)
  .openapi({
    description:
      "Email domains whose verified people sign in to this team through single sign-on; the operator's to set (a domain is claimed for the whole deployment)",
    example: ["acme.com"],
  });
const SsoDefaultRole = z.enum(["admin", "member"]).openapi({ description: "The role of a person created by their first sign-in" });
const MaxTokenDays = z.int().min(1).max(3650).nullable().openapi({
  description: "The longest lifetime, in days, of any new token of the team's users, whoever issues it; null: no cap",
  example: 90,
});

const TeamSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    monthly_token_budget: z.int().nullable(),
    code_mode_cpu_ms: z.int().nullable(),
    sso_domains: z.array(z.string()),
    sso_default_role: SsoDefaultRole,
    max_token_days: z.int().nullable(),
    otlp: OtlpShown,
    created_at: Timestamp,
  })
  .openapi("Team");

const CreateTeam = z
  .strictObject({ name: Name, monthly_token_budget: Budget.optional(), code_mode_cpu_ms: CellCpu.optional() })
  .openapi("CreateTeam");
const PatchTeam = z
  .strictObject({
    name: Name.optional(),
    monthly_token_budget: Budget.optional(),
    code_mode_cpu_ms: CellCpu.optional(),
    sso_domains: SsoDomains.optional(),
    sso_default_role: SsoDefaultRole.optional(),
    max_token_days: MaxTokenDays.optional(),
    otlp: OtlpSetting.optional(),
  })
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
    return c.json(teamJson(created.team, []), 201);
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
    const teams =
      principal.kind === "operator" ? await allTeams(db) : principal.kind === "user" ? [await teamById(db, principal.teamId)] : [];
    const listed = teams.filter((t): t is TeamRow => t !== undefined);
    const domains = await domainsOfTeams(
      db,
      listed.map((t) => t.id),
    );
    // A team's collector endpoint may name an account: its admins and the operator see it, members do not.
    const seesOtlp = principal.kind === "operator" || (principal.kind === "user" && principal.role === "admin");
    return c.json({ teams: listed.map((t) => teamJson(t, domains.get(t.id) ?? [], seesOtlp)) }, 200);
  },
);

teamRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/teams/{team_id}",
    summary:
      "Rename a team, change its budget, code-mode CPU per cell, sign-on settings (email domains, default role, token lifetime) or its OTLP collector (operator, the team's admins)",
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
    // A domain is claimed for the whole deployment: a team's admin could otherwise take gmail.com, or another company's.
    if (body.sso_domains !== undefined && c.var.principal.kind !== "operator") {
      throw new AppError("permission_denied", "only the operator sets a team's sso_domains (a domain is claimed for the whole deployment)");
    }
    const patch: TeamPatch = {
      ...(body.name !== undefined && { name: body.name }),
      ...(body.monthly_token_budget !== undefined && { monthlyTokenBudget: body.monthly_token_budget }),
      ...(body.code_mode_cpu_ms !== undefined && { codeModeCpuMs: body.code_mode_cpu_ms }),
      ...(body.sso_default_role !== undefined && { ssoDefaultRole: body.sso_default_role }),
      ...(body.max_token_days !== undefined && { maxTokenDays: body.max_token_days }),
    };
    const otlp = body.otlp === undefined ? undefined : checkOtlp(c.env, body.otlp);
    const domains = body.sso_domains === undefined ? undefined : [...new Set(body.sso_domains)].sort();
    await refuseTakenDomain(db, team.id, domains);
    const oldDomains = await domainsOfTeam(db, team.id);
    const now = Date.now();
    const recorded: Recorded[] = teamActions(body).map((action) => ({
      action,
      target: teamTarget(team),
      teamId: team.id,
      details: teamChange(action, team, { ...body, sso_domains: domains }, oldDomains),
    }));
    const [first, ...rest] = recorded;
    const audit = first ? auditEntries(c, now, [first, ...rest]) : [];
    const domainRows = (onlyIf?: SQL) => (domains ? replaceDomains(db, team.id, domains, onlyIf) : []);
    // Header values are sealed under the team's data key: a rotation between sealing and writing
    // means sealing again, and nothing of the attempt (its domains included) is written.
    const updated =
      otlp !== undefined && otlpNeedsKey(otlp)
        ? await withTeamDataKey(c.env, db, team.id, async (key) => {
            const sealed = await otlpPatch(team.id, otlp, key);
            return updateTeam(
              db,
              team.id,
              { ...patch, ...sealed },
              now,
              audit,
              domainRows(stillSealedUnder(team.id, key.wrapped)),
              key.wrapped,
            );
          })
        : await updateTeam(
            db,
            team.id,
            { ...patch, ...(otlp !== undefined && (await otlpPatch(team.id, otlp))) },
            now,
            audit,
            domainRows(),
          );
    forgetCachedLimits(); // a new budget holds here at once, elsewhere within 5 s (docs/hosting.md#limits)
    if (body.otlp !== undefined) forgetTelemetryTargets();
    if ("conflict" in updated) {
      await refuseTakenDomain(db, team.id, domains); // taken by another team between the check and the batch
      throw new AppError("already_exists", `a team named "${body.name}" already exists`);
    }
    return c.json(teamJson(updated.team, domains ?? oldDomains), 200);
  },
);

/** A domain is one team's at most (docs/hosting.md#who-gets-in). */
async function refuseTakenDomain(db: D1Db, teamId: string, domains: string[] | undefined): Promise<void> {
  const taken = domains ? await domainTakenElsewhere(db, teamId, domains) : undefined;
  if (taken) throw new AppError("already_exists", `the domain ${taken.domain} already signs people in to another team`);
}

/** What a PATCH of a team records: one action per thing it changes. */
function teamActions(body: {
  name?: unknown;
  monthly_token_budget?: unknown;
  code_mode_cpu_ms?: unknown;
  sso_domains?: unknown;
  sso_default_role?: unknown;
  max_token_days?: unknown;
  otlp?: unknown;
}): ("team.rename" | "team.budget" | "team.cell_cpu" | "team.sso" | "team.telemetry")[] {
  const sso = body.sso_domains !== undefined || body.sso_default_role !== undefined || body.max_token_days !== undefined;
  return [
    ...(body.name !== undefined ? (["team.rename"] as const) : []),
    ...(body.monthly_token_budget !== undefined ? (["team.budget"] as const) : []),
    ...(body.code_mode_cpu_ms !== undefined ? (["team.cell_cpu"] as const) : []),
    ...(sso ? (["team.sso"] as const) : []),
    ...(body.otlp !== undefined ? (["team.telemetry"] as const) : []),
  ];
}

/** What one recorded team change was, from what to what. */
function teamChange(action: ReturnType<typeof teamActions>[number], team: TeamRow, body: z.infer<typeof PatchTeam>, oldDomains: string[]) {
  if (action === "team.rename") return { from: team.name, to: body.name };
  if (action === "team.budget") return { from: team.monthlyTokenBudget, to: body.monthly_token_budget };
  if (action === "team.cell_cpu") return { from: team.codeModeCpuMs, to: body.code_mode_cpu_ms };
  // Header names only: their values are secrets.
  // The endpoint's origin and the header names: a path or a header value may hold a secret.
  if (action === "team.telemetry") {
    const shown = (endpoint: string, names: string[]) => ({ origin: new URL(endpoint).origin, header_names: names });
    const from = otlpJson(team);
    return {
      from: from && shown(from.endpoint, from.header_names),
      to: body.otlp ? shown(body.otlp.endpoint, Object.keys(body.otlp.headers ?? {})) : null,
    };
  }
  return {
    ...(body.sso_domains !== undefined && { sso_domains: { from: oldDomains, to: body.sso_domains } }),
    ...(body.sso_default_role !== undefined && { sso_default_role: { from: team.ssoDefaultRole ?? "member", to: body.sso_default_role } }),
    ...(body.max_token_days !== undefined && { max_token_days: { from: team.maxTokenDays, to: body.max_token_days } }),
  };
}

function teamTarget(team: TeamRow) {
  return { kind: "team", id: team.id, name: team.name };
}

function teamJson(team: TeamRow, domains: string[], seesOtlp = true) {
  return {
    id: team.id,
    name: team.name,
    monthly_token_budget: team.monthlyTokenBudget,
    code_mode_cpu_ms: team.codeModeCpuMs,
    sso_domains: domains,
    sso_default_role: team.ssoDefaultRole ?? "member",
    max_token_days: team.maxTokenDays,
    otlp: seesOtlp ? otlpJson(team) : null,
    created_at: iso(team.createdAtMs),
  };
}

/** The single user's own team has this name, though no route lists it (docs/hosting.md#the-single-user). */
function refuseReservedName(name: string): void {
  if (name === LOCAL_TEAM_NAME) throw new AppError("already_exists", `the team name "${name}" is reserved for the single user's own team`);
}
