// The admin API under /api (docs/hosting.md#admin-api): JSON, validated by zod,
// described at GET /api/openapi.json (OpenAPI 3.1, generated from the same
// schemas). Its interactive docs at /api/docs are static assets (dashboard/public/api/docs,
// Swagger UI from the pinned swagger-ui-dist), not a route here. Every /api/v1 route needs a
// bearer token; one file per resource, listed in RESOURCES.
import { bodyLimit } from "hono/body-limit";
import { authenticate } from "../auth/principal.ts";
import { AppError, Code } from "../../core/errors.ts";
import { sessionCookie } from "../sso/session.ts";
import { budgetRoutes } from "./budget-routes.ts";
import { adminRoutes } from "./admin-context.ts";
import { auditRoutes } from "./audit-routes.ts";
import { conversationRoutes } from "./conversation-routes.ts";
import { adminErrorResponse } from "./admin-errors.ts";
import { credentialRoutes } from "./credential-routes.ts";
import { meRoutes } from "./me-routes.ts";
import { rewrapRoutes } from "./rewrap-routes.ts";
import { rotateRoutes } from "./rotate-routes.ts";
import { sessionRoutes } from "./session-routes.ts";
import { runRoutes } from "./run-routes.ts";
import { modelTestRoutes } from "./model-test.ts";
import { modelRoutes } from "./model-routes.ts";
import { teamRoutes } from "./team-routes.ts";
import { tokenRoutes } from "./token-routes.ts";
import { usageRoutes } from "./usage-routes.ts";
import { overviewRoutes } from "./overview-routes.ts";
import { userRoutes } from "./user-routes.ts";

/** The resources under /api/v1; a new one (credentials, models, usage, runs, rewrap) is a file beside these and a line here. */
const RESOURCES = [
  meRoutes,
  teamRoutes,
  userRoutes,
  tokenRoutes,
  credentialRoutes,
  modelRoutes,
  modelTestRoutes,
  usageRoutes,
  overviewRoutes,
  runRoutes,
  conversationRoutes,
  budgetRoutes,
  rewrapRoutes,
  rotateRoutes,
  auditRoutes,
  sessionRoutes,
];

const BODY_MAX_BYTES = 64 * 1024;

const DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "byok-edge admin API",
    version: "1",
    description:
      'Teams, users and tokens of a byok-edge deployment. Errors: the HTTP status and {"error": {"code", "message", "fields"?}}; ' +
      "fields: the refused fields of an invalid_argument, each {path, message}.",
  },
};

export const adminApi = adminRoutes().basePath("/api");

adminApi.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
  type: "http",
  scheme: "bearer",
  description: "ADMIN_TOKEN (operator), a user token (byok_…), or BYOK_TOKEN",
});

adminApi.get("/openapi.json", (c) => c.json(openApiDocument()));

// Logging out clears the session cookie even when the session has ended already (it is HttpOnly:
// the page cannot), so an ended cookie is never left behind to be refused on every call.
adminApi.post("/v1/session/logout", async (c, next) => {
  try {
    c.set("principal", await authenticate(c.req.raw, c.env, c.executionCtx, { signOn: true }));
  } catch (err) {
    if (err instanceof AppError && err.code === Code.Unauthenticated) return c.body(null, 204, { "set-cookie": sessionCookie("", 0) });
    throw err;
  }
  await next();
});

adminApi.use("/v1/*", async (c, next) => {
  if (!c.get("principal")) c.set("principal", await authenticate(c.req.raw, c.env, c.executionCtx, { signOn: true }));
  await next();
});

// Admin bodies are a few fields; anything much larger is refused before it is read.
adminApi.use(
  "/v1/*",
  bodyLimit({
    maxSize: BODY_MAX_BYTES,
    onError: () => {
      // A body too large is a bad request; 429 is for limits.
      throw new AppError("invalid_argument", `the body is larger than ${BODY_MAX_BYTES / 1024} KiB`);
    },
  }),
);

for (const resource of RESOURCES) adminApi.route("/v1", resource);

adminApi.all("*", (c) => {
  throw new AppError("not_found", `${c.req.method} ${c.req.path} is not an admin API route`);
});

adminApi.onError((err) => adminErrorResponse(err));

/** @internal The OpenAPI document /api/openapi.json serves (exported so tests can validate it in Node). */
export function openApiDocument() {
  return adminApi.getOpenAPI31Document(DOCUMENT);
}
