// The audit log's retention (docs/hosting.md#audit-log): the worker's daily cron deletes
// entries older than BYOK_AUDIT_RETENTION_DAYS (default 400), the only way an entry goes.
import { errorKind } from "../../core/log-safe.ts";
import { pruneAudit } from "../store/audit-rows.ts";
import { d1 } from "../store/db.ts";

const DEFAULT_AUDIT_RETENTION_DAYS = 400;
const DAY_MS = 86_400_000;

/** Deletes what is older than the retention period at `nowMs`; how many entries went. */
export async function pruneAuditLog(env: { DB: D1Database; BYOK_AUDIT_RETENTION_DAYS?: string }, nowMs: number): Promise<number> {
  const days = retentionDays(env.BYOK_AUDIT_RETENTION_DAYS);
  try {
    return await pruneAudit(d1(env.DB), nowMs - days * DAY_MS);
  } catch (err) {
    console.error("byok-edge: audit prune failed:", errorKind(err));
    throw err;
  }
}

/** A whole number of days, at least 1; anything else is the default, said once per prune. */
function retentionDays(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_AUDIT_RETENTION_DAYS;
  const days = Number(value);
  if (Number.isInteger(days) && days >= 1) return days;
  console.warn(`byok-edge: BYOK_AUDIT_RETENTION_DAYS is not a whole number of days; keeping ${DEFAULT_AUDIT_RETENTION_DAYS}`);
  return DEFAULT_AUDIT_RETENTION_DAYS;
}
