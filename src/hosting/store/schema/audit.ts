// The D1 audit log (docs/hosting.md#audit-log): one row per admin-API write or refused
// write, inserted in the same batch as the change it records, never updated (a trigger in
// its migration refuses updates) and deleted only by the retention prune. No column holds a
// secret: details name header names, scopes and limits, never a token, key or header value.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export type AuditOutcome = "ok" | "denied" | "failed";
export type AuditActorKind = "operator" | "user" | "local" | "sso";

export const audit = sqliteTable(
  "audit",
  {
    /** `aud_<24 hex>`; with at_ms, the page keyset. */
    id: text("id").primaryKey(),
    atMs: integer("at_ms").notNull(),
    actorKind: text("actor_kind").$type<AuditActorKind>().notNull(),
    /** A user id, `operator` or `local`. */
    actorId: text("actor_id").notNull(),
    actorEmail: text("actor_email"),
    /** Dotted: `token.issue`, `model.update`, … (docs/hosting.md#audit-log). */
    action: text("action").notNull(),
    targetKind: text("target_kind").notNull(),
    targetId: text("target_id").notNull(),
    targetName: text("target_name"),
    /** The user the target is or belongs to (a user, their token, their personal credential or model): what a member sees. */
    targetUserId: text("target_user_id"),
    teamId: text("team_id"),
    outcome: text("outcome").$type<AuditOutcome>().notNull(),
    /** CF-Connecting-IP of the request. */
    ip: text("ip"),
    userAgent: text("user_agent"),
    /** A JSON object; never a secret. */
    detailsJson: text("details_json").notNull(),
  },
  (t) => [
    index("audit_by_time").on(t.atMs, t.id),
    index("audit_by_team").on(t.teamId, t.atMs, t.id),
    index("audit_by_actor").on(t.actorId, t.atMs, t.id),
    index("audit_by_target_user").on(t.targetUserId, t.atMs, t.id),
    index("audit_by_action").on(t.action, t.atMs, t.id),
  ],
);
