// GET /api/v1/me: who the token belongs to, and which of their tokens made the call.
import { createRoute, z } from "@hono/zod-openapi";
import { d1 } from "../store/db.ts";
import { teamById } from "../store/team-rows.ts";
import { tokenById } from "../store/token-rows.ts";
import { adminRoutes } from "./admin-context.ts";
import { BEARER, errorResponses, iso, json, Timestamp } from "./schemas.ts";

const MeSchema = z
  .object({
    user: z.object({ id: z.string(), email: z.string(), role: z.enum(["admin", "member"]), team_id: z.string() }).nullable(),
    team: z.object({ id: z.string(), name: z.string() }).nullable(),
    operator: z.boolean(),
    /** Added to the contract's fields: which kind of principal the token is. */
    principal: z
      .enum(["operator", "user", "local"])
      .openapi({ description: "operator (ADMIN_TOKEN), user (a user token) or local (BYOK_TOKEN)" }),
    token: z
      .object({ id: z.string(), name: z.string(), expires_at: Timestamp.nullable() })
      .nullable()
      .openapi({ description: "The user token of this call; null for the operator and local" }),
  })
  .openapi("Me");

export const meRoutes = adminRoutes();

meRoutes.openapi(
  createRoute({
    method: "get",
    path: "/me",
    summary: "Who the bearer token belongs to",
    security: BEARER,
    responses: { 200: json(MeSchema, "The caller"), ...errorResponses() },
  }),
  async (c) => {
    const principal = c.var.principal;
    if (principal.kind !== "user") {
      return c.json({ user: null, team: null, operator: principal.kind === "operator", principal: principal.kind, token: null }, 200);
    }
    const db = d1(c.env.DB);
    const [team, token] = await Promise.all([teamById(db, principal.teamId), tokenById(db, principal.tokenId)]);
    return c.json(
      {
        user: { id: principal.id, email: principal.email, role: principal.role, team_id: principal.teamId },
        team: team ? { id: team.id, name: team.name } : null,
        operator: false,
        principal: principal.kind,
        token: token ? { id: token.id, name: token.name, expires_at: iso(token.expiresAtMs) } : null,
      },
      200,
    );
  },
);
