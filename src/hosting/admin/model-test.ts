// "Test this model" in the admin API: one small provider call on a stored model the
// caller may use, reporting time to first token and tokens per second, or the
// provider's (redacted) error. Rate limited per user, since each test spends their key.
import { limitsFor } from "../limits/principal-limits.ts";
import { createRoute, z } from "@hono/zod-openapi";
import { storedKeyProblem, storedModelConfig } from "../config/principal-models.ts";
import { modelWithPersonalKey, withOpenedKey } from "../keys/stored-key.ts";
import { callerPersonalKey } from "../auth/caller-key.ts";
import { probeModel } from "./model-check.ts";
import { AppError, Code } from "../../core/errors.ts";
import { d1 } from "../store/db.ts";
import { usableModelById } from "../store/model-rows.ts";
import { ownedReach, within } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { SlidingWindow } from "./sliding-window.ts";
import { BEARER, errorResponses, idParam, json } from "./schemas.ts";

/** Tests per user in any 60 s, per isolate: enough to try settings by hand, not to load-test a key. */
const TESTS_PER_MINUTE = 6;
const tests = new SlidingWindow(TESTS_PER_MINUTE, 60_000);

const ModelTestSchema = z
  .object({
    ok: z.boolean(),
    ttft_ms: z.number().nullable().openapi({ description: "Time to the first text or thinking token" }),
    tokens_per_second: z.number().nullable().openapi({ description: "Output tokens per second after the first token" }),
    duration_ms: z.number(),
    output_tokens: z.number().nullable(),
    error: z
      .object({ kind: z.string(), status: z.number().optional(), message: z.string() })
      .optional()
      .openapi({ description: "Why the call failed, without the key or the prompt" }),
  })
  .openapi("ModelTest");

export const modelTestRoutes = adminRoutes();

modelTestRoutes.openapi(
  createRoute({
    method: "post",
    path: "/models/{model_id}/test",
    summary: `Call a model once and measure it (anyone who may use it; ${TESTS_PER_MINUTE} per minute per user)`,
    security: BEARER,
    request: { params: idParam("model_id") },
    responses: { 200: json(ModelTestSchema, "The measurement, or the provider's error"), ...errorResponses(403, 404, 429) },
  }),
  async (c) => {
    const { model_id } = c.req.valid("param");
    const principal = c.var.principal;
    const row = within(await usableModelById(d1(c.env.DB), model_id), (r) => ownedReach(principal, r.model), "view", `model ${model_id}`);
    if (principal.kind === "operator")
      throw new AppError("permission_denied", "the operator does not call providers; test with a user token");
    const waitMs = tests.take(principal.id, Date.now());
    if (waitMs > 0) {
      throw new AppError(
        "resource_exhausted",
        `at most ${TESTS_PER_MINUTE} model tests per minute per user; the next is possible in ${Math.ceil(waitMs / 1000)} s`,
      );
    }
    const keyProblem = storedKeyProblem(row);
    if (keyProblem) throw new AppError("failed_precondition", `model ${model_id}: ${keyProblem}`);
    let model: Parameters<typeof probeModel>[0];
    try {
      const stored = storedModelConfig({ ...row, wrappedDataKey: row.wrappedDataKey ?? "" });
      model = await withOpenedKey(c.env, modelWithPersonalKey(stored, await callerPersonalKey(principal)));
    } catch (err) {
      if (!(err instanceof AppError) || err.code === Code.FailedPrecondition) throw err;
      return c.json({ ...EMPTY, error: { kind: "credential", message: err.message } }, 200);
    }
    // A test is a run for the user's limits, and its call counts in the team's budget (the single user has neither).
    const teamId = principal.kind === "local" ? null : row.credential.teamId;
    const result = await probeModel(model, undefined, limitsFor(c.env, { id: principal.id, teamId }));
    return c.json(
      {
        ok: result.ok,
        ttft_ms: result.ttftMs ?? null,
        tokens_per_second: result.tokensPerSecond ?? null,
        duration_ms: result.durationMs,
        output_tokens: result.outputTokens ?? null,
        ...(result.error && { error: result.error }),
      },
      200,
    );
  },
);

const EMPTY = { ok: false, ttft_ms: null, tokens_per_second: null, duration_ms: 0, output_tokens: null };
