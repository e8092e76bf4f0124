// POST /api/v1/session/logout: ends the sign-in session of this browser (docs/hosting.md#sessions):
// its row is revoked (every isolate refuses it within 5 s) and its cookie cleared.
import { createRoute } from "@hono/zod-openapi";
import { forgetCachedToken } from "../auth/principal.ts";
import { d1 } from "../store/db.ts";
import { revokeToken } from "../store/token-rows.ts";
import { sessionCookie } from "../sso/session.ts";
import { adminRoutes } from "./admin-context.ts";
import { auditEntries } from "./audit-context.ts";
import { BEARER, errorResponses } from "./schemas.ts";

export const sessionRoutes = adminRoutes();

sessionRoutes.openapi(
  createRoute({
    method: "post",
    path: "/session/logout",
    summary: "End this browser's sign-in session (a call with a bearer token ends nothing and clears the cookie)",
    security: BEARER,
    responses: { 204: { description: "Signed out; the session cookie is cleared" }, ...errorResponses() },
  }),
  async (c) => {
    const principal = c.var.principal;
    if (principal.kind === "user" && principal.via === "session") {
      const now = Date.now();
      const target = { kind: "session", id: principal.tokenId, userId: principal.id };
      await revokeToken(
        d1(c.env.DB),
        { id: principal.tokenId, userId: principal.id },
        now,
        auditEntries(c, now, [{ action: "sso.sign_out", target, teamId: principal.teamId }]),
      );
      forgetCachedToken(principal.tokenId);
    }
    return c.body(null, 204, { "set-cookie": sessionCookie("", 0) });
  },
);
