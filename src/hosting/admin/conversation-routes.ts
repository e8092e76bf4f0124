// GET /api/v1/conversations: the caller's visible conversations summarised from their
// runs, most recently active first (docs/hosting.md#runs-api); who sees what as for runs.
import { createRoute, z } from "@hono/zod-openapi";
import { d1 } from "../store/db.ts";
import { conversationsPage } from "../store/run-rows.ts";
import { adminRoutes } from "./admin-context.ts";
import { decodeCursor, encodeCursor } from "./run-cursor.ts";
import { NextBefore, PageQuery, visibleRuns } from "./run-routes.ts";
import { BEARER, errorResponses, iso, json, Timestamp } from "./schemas.ts";

const ConversationSchema = z
  .object({
    id: z.string().openapi({ description: "The conversation id" }),
    user_id: z.string().openapi({ description: "A user id, or local for the single-user principal" }),
    email: z.string().nullable().openapi({ description: "null for local and removed users" }),
    team_id: z.string().nullable(),
    runs: z.int(),
    last_model: z.string(),
    last_status: z.string().openapi({ example: "completed" }),
    started_at: Timestamp.openapi({ description: "When its first recorded run started" }),
    last_finished_at: Timestamp,
    input_tokens: z.int(),
    output_tokens: z.int(),
  })
  .openapi("Conversation");

const ConversationsSchema = z.object({ conversations: z.array(ConversationSchema), next_before: NextBefore }).openapi("Conversations");

export const conversationRoutes = adminRoutes();

conversationRoutes.openapi(
  createRoute({
    method: "get",
    path: "/conversations",
    summary: "Conversations with run counts and their last run: own (members), the team's (admins), all (operator)",
    security: BEARER,
    request: { query: PageQuery },
    responses: { 200: json(ConversationsSchema, "A page of conversations, most recently active first"), ...errorResponses(404) },
  }),
  async (c) => {
    const query = c.req.valid("query");
    const cursor = decodeCursor(query.before);
    const db = d1(c.env.DB);
    const rows = await conversationsPage(db, await visibleRuns(db, c.var.principal, query), cursor, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return c.json(
      {
        conversations: page.map((row) => ({
          id: row.conversationId,
          user_id: row.principal,
          email: row.email,
          team_id: row.teamId,
          runs: row.runs,
          last_model: row.lastModel,
          last_status: row.lastStatus,
          started_at: iso(row.startedAtMs),
          last_finished_at: iso(row.lastFinishedAtMs),
          input_tokens: row.inputTokens,
          output_tokens: row.outputTokens,
        })),
        next_before: rows.length > query.limit && last ? encodeCursor({ atMs: last.lastFinishedAtMs, rowId: last.rowId }) : null,
      },
      200,
    );
  },
);
