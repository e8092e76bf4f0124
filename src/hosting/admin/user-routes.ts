// A team's users: the operator and the team's admins add, list, change and remove
// them. Removing a user revokes their tokens; a team keeps at least one admin. Each write is
// recorded in the audit log (user.add, user.role, user.limits, user.remove).
import { createRoute, z } from "@hono/zod-openapi";
import { forgetCachedUser } from "../auth/principal.ts";
import { forgetCachedLimits } from "../limits/limits-cache.ts";
import { AppError } from "../../core/errors.ts";
import { d1 } from "../store/db.ts";
import { teamById } from "../store/team-rows.ts";
import { activeUser, activeUsersOfTeam, addUser, removeUser, type UserPatch, type UserRow, updateUser } from "../store/user-rows.ts";
import { teamReach, userReach, within } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { auditEntries, type Recorded, recordsDenial } from "./audit-context.ts";
import { BEARER, errorResponses, idParam, iso, json, jsonBody, Timestamp } from "./schemas.ts";

const Role = z.enum(["admin", "member"]);
const Limit = (what: string) =>
  z
    .int()
    .min(1)
    .nullable()
    .openapi({ description: `${what}; null: no limit` });
const RequestsPerMinute = Limit("Runs started in any rolling 60 s");
const MaxConcurrentRuns = Limit("Runs in progress at once, subagents included");

const UserSchema = z
  .object({
    id: z.string(),
    team_id: z.string(),
    email: z.string(),
    role: Role,
    requests_per_minute: z.int().nullable(),
    max_concurrent_runs: z.int().nullable(),
    created_at: Timestamp,
  })
  .openapi("User");

const CreateUser = z
  .strictObject({
    email: z.email().max(320).openapi({ example: "ada@example.com" }),
    role: Role,
    requests_per_minute: RequestsPerMinute.optional(),
    max_concurrent_runs: MaxConcurrentRuns.optional(),
  })
  .openapi("CreateUser");

const PatchUser = z
  .strictObject({
    role: Role.optional(),
    requests_per_minute: RequestsPerMinute.optional(),
    max_concurrent_runs: MaxConcurrentRuns.optional(),
  })
  .openapi("PatchUser");

export const userRoutes = adminRoutes();

userRoutes.openapi(
  createRoute({
    method: "post",
    path: "/teams/{team_id}/users",
    summary: "Add a user to a team (operator, the team's admins)",
    security: BEARER,
    middleware: [recordsDenial("user.add", { kind: "user" })],
    request: { params: idParam("team_id"), body: jsonBody(CreateUser) },
    responses: { 201: json(UserSchema, "The new user"), ...errorResponses(403, 404, 409) },
  }),
  async (c) => {
    const { team_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = d1(c.env.DB);
    const team = within(await teamById(db, team_id), (t) => teamReach(c.var.principal, t.id), "manage", `team ${team_id}`);
    const now = Date.now();
    const added = await addUser(
      db,
      {
        teamId: team.id,
        email: body.email.toLowerCase(),
        role: body.role,
        requestsPerMinute: body.requests_per_minute ?? null,
        maxConcurrentRuns: body.max_concurrent_runs ?? null,
      },
      now,
      (user) =>
        auditEntries(c, now, [
          { action: "user.add", target: userTarget(user), teamId: user.teamId, details: { role: user.role, ...limitsOf(user) } },
        ]),
    );
    if ("conflict" in added) throw new AppError("already_exists", `team ${team.id} already has a user with that email`);
    return c.json(userJson(added.user), 201);
  },
);

userRoutes.openapi(
  createRoute({
    method: "get",
    path: "/teams/{team_id}/users",
    summary: "List a team's users (operator, the team's admins)",
    security: BEARER,
    request: { params: idParam("team_id") },
    responses: { 200: json(z.object({ users: z.array(UserSchema) }), "The team's users"), ...errorResponses(403, 404) },
  }),
  async (c) => {
    const { team_id } = c.req.valid("param");
    const db = d1(c.env.DB);
    const team = within(await teamById(db, team_id), (t) => teamReach(c.var.principal, t.id), "manage", `team ${team_id}`);
    return c.json({ users: (await activeUsersOfTeam(db, team.id)).map(userJson) }, 200);
  },
);

userRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/users/{user_id}",
    summary: "Change a user's role or limits (operator, the team's admins)",
    security: BEARER,
    middleware: [recordsDenial(userActions, { kind: "user", param: "user_id" })],
    request: { params: idParam("user_id"), body: jsonBody(PatchUser) },
    responses: { 200: json(UserSchema, "The user"), ...errorResponses(403, 404, 412) },
  }),
  async (c) => {
    const { user_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = d1(c.env.DB);
    const user = within(await activeUser(db, user_id), (u) => userReach(c.var.principal, u), "manage", `user ${user_id}`);
    const patch: UserPatch = {
      ...(body.role !== undefined && { role: body.role }),
      ...(body.requests_per_minute !== undefined && { requestsPerMinute: body.requests_per_minute }),
      ...(body.max_concurrent_runs !== undefined && { maxConcurrentRuns: body.max_concurrent_runs }),
    };
    const now = Date.now();
    const after = { ...user, ...patch };
    const recorded: Recorded[] = userActions(body).map((action) => ({
      action,
      target: userTarget(user),
      teamId: user.teamId,
      details: action === "user.role" ? { from: user.role, to: after.role } : { from: limitsOf(user), to: limitsOf(after) },
    }));
    const [first, ...rest] = recorded;
    const updated = await updateUser(db, user, patch, now, first ? auditEntries(c, now, [first, ...rest]) : []);
    if (!updated) throw lastAdmin(user);
    forgetCachedUser(user.id); // the new role holds here at once, elsewhere within 5 s
    forgetCachedLimits(); // so do new limits (docs/hosting.md#limits)
    return c.json(userJson(updated), 200);
  },
);

userRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/users/{user_id}",
    summary: "Remove a user; their tokens stop working (operator, the team's admins)",
    security: BEARER,
    middleware: [recordsDenial("user.remove", { kind: "user", param: "user_id" })],
    request: { params: idParam("user_id") },
    responses: { 204: { description: "Removed" }, ...errorResponses(403, 404, 412) },
  }),
  async (c) => {
    const { user_id } = c.req.valid("param");
    const db = d1(c.env.DB);
    const user = within(await activeUser(db, user_id), (u) => userReach(c.var.principal, u), "manage", `user ${user_id}`);
    const now = Date.now();
    const audit = auditEntries(c, now, [
      { action: "user.remove", target: userTarget(user), teamId: user.teamId, details: { role: user.role } },
    ]);
    if (!(await removeUser(db, user, now, audit))) throw lastAdmin(user);
    forgetCachedUser(user.id);
    return c.body(null, 204);
  },
);

/** What a PATCH of a user records: one action per thing it changes. */
function userActions(body: {
  role?: unknown;
  requests_per_minute?: unknown;
  max_concurrent_runs?: unknown;
}): ("user.role" | "user.limits")[] {
  const limits = body.requests_per_minute !== undefined || body.max_concurrent_runs !== undefined;
  return [...(body.role !== undefined ? (["user.role"] as const) : []), ...(limits ? (["user.limits"] as const) : [])];
}

function userTarget(user: UserRow) {
  return { kind: "user", id: user.id, name: user.email, userId: user.id };
}

function limitsOf(user: Pick<UserRow, "requestsPerMinute" | "maxConcurrentRuns">) {
  return { requests_per_minute: user.requestsPerMinute, max_concurrent_runs: user.maxConcurrentRuns };
}

function lastAdmin(user: UserRow): AppError {
  return new AppError("failed_precondition", `user ${user.id} is the last admin of team ${user.teamId}; make another user admin first`);
}

function userJson(user: UserRow) {
  return {
    id: user.id,
    team_id: user.teamId,
    email: user.email,
    role: user.role,
    requests_per_minute: user.requestsPerMinute,
    max_concurrent_runs: user.maxConcurrentRuns,
    created_at: iso(user.createdAtMs),
  };
}
