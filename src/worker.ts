// The edge: authenticates, validates, and routes each path to its product (docs/architecture.md).
// What it keeps is per isolate and bounded: the route cache (src/cursor/routes/route-cache.ts)
// and the token cache (src/hosting/auth/token-cache.ts). Agent runs live in per-conversation
// Durable Objects, found through per-principal routers.
import { type Context, Hono } from "hono";
import { logLine } from "./telemetry/log-line.ts";
import { metricsResponse } from "./hosting/metrics/metrics-route.ts";
import { adminApi } from "./hosting/admin/api.ts";
import { signOnRoutes } from "./hosting/sso/routes.ts";
import { authenticate, type RunnerPrincipal, requireRunner } from "./hosting/auth/principal.ts";
import { UNARY_ROUTES } from "./cursor/routes/unary-routes.ts";
import { modelCatalogFor } from "./hosting/config/principal-models.ts";
import { callerPersonalKey } from "./hosting/auth/caller-key.ts";
import { withPersonalKey } from "./hosting/keys/stored-key.ts";
import { reportSettingsOnce } from "./hosting/config/settings-report.ts";
import type { AppEnv } from "./core/env.ts";
import { errorResponse, protoResponse, readUnaryBody } from "./proto/connect/http.ts";
import { type Caller, handleBidiAppend, handleRunSse } from "./cursor/routes/agent-routes.ts";
import { readLimited } from "./proto/connect/bounded-body.ts";
import { CODE_MODE_PATH, handleCodeMode } from "./code-mode/routes.ts";
import { checkModel } from "./hosting/admin/model-check.ts";
import { benchRoutes } from "./cursor/routes/bench-routes.ts";
import { limitsFor } from "./hosting/limits/principal-limits.ts";
import { AppError, Code, toAppError } from "./core/errors.ts";
import { errorKind } from "./core/log-safe.ts";
import { pruneAuditLog } from "./hosting/admin/audit-retention.ts";
import { pruneActiveRuns } from "./hosting/store/usage-rows.ts";

export { CodeModeSessionObject } from "./durable/code-mode-session-object.ts";
export { ConversationObject } from "./durable/conversation-object.ts";
export { KeyPoolObject } from "./durable/key-pool-object.ts";
export { RouterObject } from "./durable/router-object.ts";
export { TeamBudgetObject } from "./durable/team-budget-object.ts";
export { UserLimiterObject } from "./durable/user-limiter-object.ts";

/** The model check's JSON body is a prompt of at most 4,000 characters. */
const JSON_BODY_MAX_BYTES = 64 * 1024;

type HonoEnv = { Bindings: AppEnv; Variables: { principal: RunnerPrincipal } };

const app = new Hono<HonoEnv>();

app.use("*", async function reportSettings(c, next) {
  reportSettingsOnce(c.env);
  await next();
});

// One JSON line per request (docs/telemetry.md#logs), after its response is made: the path, not its query.
app.use("*", async function logRequest(c, next) {
  const started = Date.now();
  try {
    await next();
  } finally {
    const principal = (c.var as { principal?: { id: string } }).principal;
    logLine("request", {
      request_id: c.req.header("cf-ray") ?? c.req.header("x-request-id") ?? null,
      method: c.req.method,
      path: new URL(c.req.url).pathname,
      status: c.res.status,
      duration_ms: Date.now() - started,
      principal_id: principal?.id ?? null,
    });
  }
});

// Prometheus metrics (docs/telemetry.md#metrics), before the Cursor routes' authentication: its own tokens.
app.get("/metrics", (c) => metricsResponse(c.req.raw, c.env));

// The admin API answers in its own JSON error shape and authenticates itself (docs/hosting.md#admin-api).
app.route("/", adminApi);
// Single sign-on's browser routes under /auth (docs/hosting.md#single-sign-on).
app.route("/", signOnRoutes);

// Every Cursor call: a principal that runs turns (the operator does not).
app.use("*", async function requirePrincipal(c, next) {
  c.set("principal", requireRunner(await authenticate(c.req.raw, c.env, c.executionCtx)));
  await next();
});

app.post("/agent.v1.AgentService/RunSSE", (c) => handleRunSse(c.req.raw, c.env, c.var.principal, caller(c)));

app.post("/aiserver.v1.BidiService/BidiAppend", async (c) => {
  await handleBidiAppend(c.req.raw, c.env, c.var.principal, caller(c));
  return protoResponse(new Uint8Array(0));
});

// Codex's code-mode host service (docs/code-mode.md#service).
app.post(CODE_MODE_PATH, (c) => handleCodeMode(c.req.raw, c.env, c.var.principal));

app.route("/__bench", benchRoutes); // answers only when BYOK_BENCH_ROUTES is "true"

// Test one of the caller's models (JSON, same bearer token).
app.post("/byok/v1/models/:name/check", async (c) => {
  const body = c.req.header("content-type")?.includes("json") ? await readJsonBody(c.req.raw) : undefined;
  const principal = c.var.principal;
  const limits = limitsFor(c.env, { id: principal.id, teamId: principal.kind === "user" ? principal.teamId : null });
  const catalog = withPersonalKey(await modelCatalogFor(c.env, principal), await callerPersonalKey(principal));
  return c.json(await checkModel(c.env, catalog, c.req.param("name"), body, limits));
});

app.post("/:service/:method", async (c) => {
  const handler = UNARY_ROUTES.get(new URL(c.req.url).pathname);
  if (!handler) throw unimplemented(c.req.path);
  await readUnaryBody(c.req.raw); // validates framing; requests carry nothing we need
  const principal = c.var.principal;
  const models = (await modelCatalogFor(c.env, principal)).models;
  return protoResponse(handler({ models, principal: principal.id, ...(principal.kind === "user" && { email: principal.email }) }));
});

app.all("*", (c) => {
  throw unimplemented(c.req.path);
});

app.onError((err) => {
  const error = toAppError(err);
  if (error.code === Code.Internal) console.error("byok-edge: request failed:", errorKind(error.cause));
  return errorResponse(error);
});

/** A small JSON body (a model check's), refused once past 64 KiB while it streams (docs/protocol.md#limits). */
async function readJsonBody(request: Request): Promise<unknown> {
  const tooLarge = () => new AppError("invalid_argument", `the body is larger than ${JSON_BODY_MAX_BYTES / 1024} KiB`);
  const bytes = await readLimited(request.body, JSON_BODY_MAX_BYTES, tooLarge);
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new AppError("invalid_argument", "the body is not valid JSON");
  }
}

/** What a route needs of the HTTP call beyond its request: its client's leaving, and waitUntil. */
function caller(c: Context<HonoEnv>): Caller {
  return { signal: c.req.raw.signal, waitUntil: (promise) => c.executionCtx.waitUntil(promise) };
}

function unimplemented(path: string): AppError {
  return new AppError("unimplemented", `${path} is not served by byok-edge`);
}

export default {
  fetch: app.fetch,
  // wrangler.toml's daily cron: the audit log's retention (docs/hosting.md#audit-log), and active-run rows a crash left.
  async scheduled(controller, env) {
    await pruneAuditLog(env, controller.scheduledTime);
    await pruneActiveRuns(env, controller.scheduledTime);
  },
} satisfies ExportedHandler<AppEnv>;
