// GET /api/v1/me: who the token belongs to, and which of their tokens (or which sign-in) made the call.
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
      .openapi({ description: "The user token of this call; null for the operator, local and a signed-in session" }),
    signed_in_via: z.enum(["token", "session", "access"]).nullable().openapi({
      description: "How a user's call proved who it is: a bearer token, the dashboard's sign-in session cookie, or Cloudflare Access",
    }),
    session: z
      .object({ id: z.string(), expires_at: Timestamp.nullable() })
      .nullable()
      .openapi({ description: "The sign-in session of this call (signed_in_via session); it ends at POST /api/v1/session/logout" }),
    team_max_token_days: z.int().nullable().openapi({ description: "The team's cap on a token's lifetime in days; null: none" }),
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
      const operator = principal.kind === "operator";
      const none = { token: null, signed_in_via: null, session: null, team_max_token_days: null };
      return c.json({ user: null, team: null, operator, principal: principal.kind, ...none }, 200);
    }
    const db = d1(c.env.DB);
    const [team, row] = await Promise.all([
      teamById(db, principal.teamId),
      principal.via === "access" ? undefined : tokenById(db, principal.tokenId),
    ]);
    const token = principal.via === "token" ? row : undefined;
    const session = principal.via === "session" ? row : undefined;
    return c.json(
      {
        user: { id: principal.id, email: principal.email, role: principal.role, team_id: principal.teamId },
        team: team ? { id: team.id, name: team.name } : null,
        operator: false,
        principal: principal.kind,
        token: token ? { id: token.id, name: token.name, expires_at: iso(token.expiresAtMs) } : null,
        signed_in_via: principal.via,
        session: session ? { id: session.id, expires_at: iso(session.expiresAtMs) } : null,
        team_max_token_days: team?.maxTokenDays ?? null,
      },
      200,
    );
  },
);
