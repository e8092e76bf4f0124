// POST /api/v1/admin/rotate-data-keys (operator): a new data key for every team, every stored
// secret (credential keys, header values) re-encrypted under it, the old one dropped, so an old
// D1 backup no longer opens today's rows nor today's key its rows
// (docs/keys-at-rest.md#rotating-the-data-keys). Safe to run again; one that stopped halfway is finished.
import { createRoute, z } from "@hono/zod-openapi";
import { AppError } from "../../core/errors.ts";
import { forgetModelCatalogs } from "../config/principal-models.ts";
import { rotateTeamDataKey } from "../keys/data-key-rotation.ts";
import { loadKeyring } from "../keys/kek.ts";
import { teamDataKeys } from "../store/data-key-rows.ts";
import { d1 } from "../store/db.ts";
import { requireOperator } from "./access.ts";
import { auditEntries, recordsDenial } from "./audit-context.ts";
import { auditInsert } from "../store/audit-rows.ts";
import { adminRoutes } from "./admin-context.ts";
import { BEARER, errorResponses, json } from "./schemas.ts";

const RotationSchema = z
  .object({
    teams: z.int().openapi({ description: "Teams holding a data key" }),
    rotated: z.int().openapi({ description: "Teams now under a new data key, the old one dropped" }),
    credential_keys: z.int().openapi({ description: "Credential keys re-encrypted under their team's new data key" }),
    header_sets: z.int().openapi({
      description:
        "Credentials' and models' headers re-encrypted, or encrypted for the first time (rows stored before header values were sealed)",
    }),
    failed: z.int(),
    failures: z
      .array(z.object({ team_id: z.string(), message: z.string() }))
      .openapi({ description: "Why each failed (that team keeps working; run again); never key material" }),
  })
  .openapi("DataKeyRotation");

export const rotateRoutes = adminRoutes();

rotateRoutes.openapi(
  createRoute({
    method: "post",
    path: "/admin/rotate-data-keys",
    summary: "Give every team a new data key and re-encrypt every stored secret under it (operator)",
    security: BEARER,
    middleware: [recordsDenial("keys.rotate", { kind: "data_keys", id: "all" })],
    request: {
      query: z.object({ team_id: z.string().max(100).optional().openapi({ description: "Only this team's data key" }) }),
    },
    responses: { 200: json(RotationSchema, "Counts; safe to run again"), ...errorResponses(403, 412, 501) },
  }),
  async (c) => {
    requireOperator(c.var.principal, c.env);
    await loadKeyring(c.env, "re-wrapped");
    const db = d1(c.env.DB);
    const { team_id } = c.req.valid("query");
    const teams = (await teamDataKeys(db)).filter((team) => team_id === undefined || team.teamId === team_id);
    const counts = {
      teams: teams.length,
      rotated: 0,
      credential_keys: 0,
      header_sets: 0,
      failed: 0,
      failures: [] as { team_id: string; message: string }[],
    };
    // One team at a time: each holds its rows for a few batches, and one that fails leaves the others rotated.
    // One entry for the whole run, after it, even when a failure ends it early: a rotation is
    // many batches, each safe to repeat (docs/hosting.md#audit-log).
    let ended = false;
    try {
      for (const { teamId } of teams) {
        try {
          const team = await rotateTeamDataKey(c.env, db, teamId);
          if (team.rotated) counts.rotated++;
          counts.credential_keys += team.credentialKeys;
          counts.header_sets += team.headerSets;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          counts.failures.push({ team_id: teamId, message: error.message });
        }
      }
      ended = true;
    } finally {
      counts.failed = counts.failures.length;
      forgetModelCatalogs();
      const { failures, ...figures } = counts;
      await db.batch([
        auditInsert(
          db,
          auditEntries(c, Date.now(), [
            {
              action: "keys.rotate",
              target: { kind: "data_keys", id: team_id ?? "all" },
              teamId: team_id ?? null,
              details: { ...figures, failed_team_ids: failures.map((f) => f.team_id), ended },
              outcome: ended && failures.length === 0 ? "ok" : "failed",
            },
          ]),
        ),
      ]);
    }
    return c.json(counts, 200);
  },
);
