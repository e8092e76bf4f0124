// GET /api/v1/audit: the audit log, newest first, a page at a time (docs/hosting.md#audit-log).
// Who sees what: the operator every entry, an admin their team's, a member (and `local`)
// the entries they made or that are about them; a team_id outside the caller's reach is 404.
import { createRoute, z } from "@hono/zod-openapi";
import { fromBase64, toBase64Url } from "../../core/bytes.ts";
import { AUDIT_ACTIONS, type AuditCursor, type AuditFilter, type AuditRow, auditPage } from "../store/audit-rows.ts";
import { d1 } from "../store/db.ts";
import { teamById } from "../store/team-rows.ts";
import { adminRoutes } from "./admin-context.ts";
import { invalidField } from "./admin-errors.ts";
import { BEARER, errorResponses, iso, json, Timestamp } from "./schemas.ts";
import { scopeOf } from "./usage-routes.ts";

const MAX_PAGE = 200;

const Instant = z.iso.datetime({ offset: true });

const AuditQuery = z.object({
  team_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: "Only this team's (the operator; others may name only their own team)" }),
  actor_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: "Only entries made by this actor (a user id, operator or local)" }),
  action: z.enum(AUDIT_ACTIONS).optional().openapi({ description: "Only this action", example: "token.issue" }),
  since: Instant.optional().openapi({ description: "Entries at or after this time (ISO-8601)" }),
  until: Instant.optional().openapi({ description: "Entries before this time (ISO-8601)" }),
  cursor: z.string().min(1).max(200).optional().openapi({ description: "The next_cursor of the previous page: the entries after it" }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE)
    .default(50)
    .openapi({ description: `Entries per page, 1 to ${MAX_PAGE}`, example: 50 }),
});

const AuditEntrySchema = z
  .object({
    id: z.string(),
    at: Timestamp,
    actor: z.object({ kind: z.enum(["operator", "user", "local", "sso"]), id: z.string(), email: z.string().nullable() }),
    action: z.string().openapi({ example: "credential.rotate" }),
    target: z.object({ kind: z.string(), id: z.string(), name: z.string().optional() }),
    team_id: z.string().nullable(),
    outcome: z.enum(["ok", "denied", "failed"]),
    ip: z.string().nullable().openapi({ description: "CF-Connecting-IP of the request" }),
    user_agent: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).openapi({ description: "What changed; never a token, key or header value" }),
  })
  .openapi("AuditEntry");

const AuditPageSchema = z
  .object({
    entries: z.array(AuditEntrySchema),
    next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page" }),
  })
  .openapi("AuditPage");

export const auditRoutes = adminRoutes();

auditRoutes.openapi(
  createRoute({
    method: "get",
    path: "/audit",
    summary: "The audit log, newest first: all (operator), the team's (admins), own (members)",
    security: BEARER,
    request: { query: AuditQuery },
    responses: { 200: json(AuditPageSchema, "A page of entries, newest first"), ...errorResponses(404) },
  }),
  async (c) => {
    const query = c.req.valid("query");
    if (query.since !== undefined && query.until !== undefined && Date.parse(query.until) <= Date.parse(query.since)) {
      throw invalidField("query.until", "must be after since");
    }
    const db = d1(c.env.DB);
    const scope = await scopeOf(c.var.principal, query.team_id, (id) => teamById(db, id));
    const filter: AuditFilter = {
      ...("teamId" in scope && { teamId: scope.teamId }),
      ...("principal" in scope && { visibleTo: scope.principal }),
      ...(query.actor_id !== undefined && { actorId: query.actor_id }),
      ...(query.action !== undefined && { action: query.action }),
      ...(query.since !== undefined && { sinceMs: Date.parse(query.since) }),
      ...(query.until !== undefined && { untilMs: Date.parse(query.until) }),
    };
    // One row more than the page tells whether another page follows.
    const rows = await auditPage(db, filter, decodeCursor(query.cursor), query.limit + 1);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return c.json({ entries: page.map(entryJson), next_cursor: rows.length > query.limit && last ? encodeCursor(last) : null }, 200);
  },
);

/** base64url of "<at ms>.<entry id>": the keyset of a page's last entry. */
function encodeCursor(row: AuditCursor): string {
  return toBase64Url(new TextEncoder().encode(`${row.atMs}.${row.id}`));
}

function decodeCursor(cursor: string | undefined): AuditCursor | undefined {
  if (cursor === undefined) return undefined;
  const bytes = /^[A-Za-z0-9_-]+$/.test(cursor) ? fromBase64(cursor) : undefined;
  const match = (bytes ? new TextDecoder().decode(bytes) : "").match(/^(\d{1,16})\.(aud_[0-9a-f]{24})$/);
  const atMs = Number(match?.[1]);
  if (!match?.[2] || !Number.isSafeInteger(atMs))
    throw invalidField("query.cursor", "not a cursor; pass the next_cursor of the previous page");
  return { atMs, id: match[2] };
}

function entryJson(row: AuditRow) {
  return {
    id: row.id,
    at: iso(row.atMs),
    actor: { kind: row.actorKind, id: row.actorId, email: row.actorEmail },
    action: row.action,
    target: { kind: row.targetKind, id: row.targetId, ...(row.targetName !== null && { name: row.targetName }) },
    team_id: row.teamId,
    outcome: row.outcome,
    ip: row.ip,
    user_agent: row.userAgent,
    details: JSON.parse(row.detailsJson) as Record<string, unknown>,
  };
}
