// How an admin route describes what it records in the audit log (docs/hosting.md#audit-log):
// who (the principal), from where (CF-Connecting-IP, User-Agent) and when, for the entries its
// store call writes in the change's own batch; and the route middleware that records a write
// refused for lack of permission, alone, as `denied`.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { Principal } from "../auth/principal.ts";
import { AppError, Code } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import { type AuditAction, type AuditActor, type AuditEntry, type AuditTarget, recordAudit } from "../store/audit-rows.ts";
import { d1 } from "../store/db.ts";
import type { AdminEnv } from "./admin-context.ts";

const USER_AGENT_MAX = 512;

/** What one entry says beyond who, where and when. */
export interface Recorded {
  action: AuditAction;
  target: AuditTarget;
  teamId: string | null;
  details?: Record<string, unknown>;
  /** "ok" unless said: "failed" for a change that partly did not happen (a rewrap with failures). */
  outcome?: "ok" | "failed";
}

export function actorOf(principal: Principal): AuditActor {
  if (principal.kind === "user") return { kind: "user", id: principal.id, email: principal.email };
  return { kind: principal.kind, id: principal.id, email: null };
}

/** The entries of a change made by this request, at `atMs`. */
export function auditEntries(
  c: Context<AdminEnv>,
  atMs: number,
  recorded: readonly [Recorded, ...Recorded[]],
): [AuditEntry, ...AuditEntry[]] {
  const [first, ...rest] = recorded.map((r) => entryOf(c, atMs, r.outcome ?? "ok", r));
  return [first!, ...rest];
}

function entryOf(c: Context<AdminEnv>, atMs: number, outcome: AuditEntry["outcome"], r: Recorded): AuditEntry {
  return {
    atMs,
    actor: actorOf(c.var.principal),
    action: r.action,
    target: r.target,
    teamId: r.teamId,
    outcome,
    ip: c.req.header("cf-connecting-ip") ?? null,
    userAgent: c.req.header("user-agent")?.slice(0, USER_AGENT_MAX) ?? null,
    details: r.details ?? {},
  };
}

/**
 * Route middleware of a write: when its handler refuses it with permission_denied, one
 * `denied` entry per action it asked for, written alone (nothing else of it ran). The target
 * is the path's `param` (a create has none: id "", the name it asked for); the team is the
 * caller's own, the one a 403 can only be about (anything of another team is 404).
 */
export function recordsDenial(
  actions: AuditAction | ((body: Record<string, unknown>) => AuditAction[]),
  target: { kind: string; param?: string; id?: string },
) {
  return createMiddleware<AdminEnv>(async (c, next) => {
    await next();
    const error = c.error;
    if (!(error instanceof AppError) || error.code !== Code.PermissionDenied) return;
    const body = validatedBody(c);
    const wanted = typeof actions === "string" ? [actions] : actions(body);
    const principal = c.var.principal;
    const id = target.id ?? (target.param ? (c.req.param(target.param) ?? "") : "");
    const name = typeof body.name === "string" ? body.name : typeof body.email === "string" ? body.email : null;
    const entries = wanted.map((action) =>
      entryOf(c, Date.now(), "denied", {
        action,
        target: { kind: target.kind, id, name: id ? null : name, userId: target.kind === "user" && id ? id : null },
        teamId: principal.kind === "user" ? principal.teamId : null,
      }),
    );
    const [first, ...rest] = entries;
    if (!first) return;
    await recordAudit(d1(c.env.DB), [first, ...rest]).catch((err: unknown) => {
      // The refusal stands either way; its record is best effort.
      console.error("byok-edge: audit of a refusal failed:", errorKind(err));
    });
  });
}

/** The body the route's validator accepted; {} when there is none. */
function validatedBody(c: Context<AdminEnv>): Record<string, unknown> {
  try {
    const body = (c.req.valid as (target: "json") => unknown)("json");
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
