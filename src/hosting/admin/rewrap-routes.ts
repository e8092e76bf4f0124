// POST /api/v1/admin/rewrap (operator): after a KEK rotation, re-wraps every team's
// data key under KEY_ENCRYPTION_KEY, bound to its team (docs/keys-at-rest.md#rotation).
// Credential rows do not change; when nothing failed, KEY_ENCRYPTION_KEY_PREVIOUS can be removed.
// Each run is one keys.rewrap entry in the audit log, in the batch of the new wrappings.
import { createRoute, z } from "@hono/zod-openapi";
import { rewrapDataKeys } from "../keys/data-key.ts";
import { d1 } from "../store/db.ts";
import { replaceWrappedDataKeys, wrappedDataKeys } from "../store/data-key-rows.ts";
import { requireOperator } from "./access.ts";
import { adminRoutes } from "./admin-context.ts";
import { auditEntries, recordsDenial } from "./audit-context.ts";
import { BEARER, errorResponses, json } from "./schemas.ts";

const RewrapSchema = z
  .object({
    teams: z.int().openapi({ description: "Teams holding a data key" }),
    rewrapped: z.int().openapi({
      description: "Were under KEY_ENCRYPTION_KEY_PREVIOUS, or not yet bound to their team, now under KEY_ENCRYPTION_KEY and bound",
    }),
    unchanged: z.int().openapi({ description: "Were already under KEY_ENCRYPTION_KEY" }),
    failed: z.int(),
    failures: z
      .array(z.object({ team_id: z.string(), message: z.string() }))
      .openapi({ description: "Why each failed; never key material" }),
  })
  .openapi("Rewrap");

export const rewrapRoutes = adminRoutes();

rewrapRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/rewrap",
    summary: "Re-wrap every team's data key under KEY_ENCRYPTION_KEY (operator)",
    security: BEARER,
    middleware: [recordsDenial("keys.rewrap", { kind: "data_keys", id: "all" })],
    responses: { 200: json(RewrapSchema, "Counts; safe to run again"), ...errorResponses(403, 412, 501) },
  }),
  async (c) => {
    requireOperator(c.var.principal, c.env);
    const db = d1(c.env.DB);
    const stored = await wrappedDataKeys(db);
    const outcome = await rewrapDataKeys(c.env, stored);
    const changes = stored.flatMap((row, i) => {
      const to = outcome.wrapped[i];
      return to !== undefined && to !== row.wrapped ? [{ teamId: row.teamId, from: row.wrapped, to }] : [];
    });
    const failures = outcome.failures.map((f) => ({ team_id: stored[f.index]?.teamId ?? "", message: f.message }));
    const now = Date.now();
    const counts = { teams: stored.length, rewrapped: outcome.rewrapped, unchanged: outcome.unchanged, failed: failures.length };
    const audit = auditEntries(c, now, [
      {
        action: "keys.rewrap",
        target: { kind: "data_keys", id: "all" },
        teamId: null,
        details: { ...counts, failed_team_ids: failures.map((f) => f.team_id) },
        outcome: failures.length > 0 ? "failed" : "ok",
      },
    ]);
    await replaceWrappedDataKeys(db, changes, now, audit);
    return c.json({ ...counts, failures }, 200);
  },
);
