// Who a verified email signs in as (docs/hosting.md#who-gets-in): the user with that email, or,
// on a first sign-in, a new user of the team that lists the email's domain, with that team's
// default role. Every sign-in, refusal and creation is written to the audit log, actor "sso".
import { AppError } from "../../core/errors.ts";
import { type AuditEntry, recordAudit } from "../store/audit-rows.ts";
import { type D1Db, newId } from "../store/db.ts";
import { errorKind } from "../../core/log-safe.ts";
import { provisionUser, teamOfDomain, usersByEmail } from "../store/sign-on-rows.ts";
import type { UserRow } from "../store/user-rows.ts";

const USER_AGENT_MAX = 512;

/** How the person proved their email. */
export type SignOnVia = "access" | "oidc";

/** Where a sign-in came from, for its audit entries. */
export interface SignInRequest {
  via: SignOnVia;
  ip: string | null;
  userAgent: string | null;
}

export function signInRequest(request: Request, via: SignOnVia): SignInRequest {
  return {
    via,
    ip: request.headers.get("cf-connecting-ip"),
    userAgent: request.headers.get("user-agent")?.slice(0, USER_AGENT_MAX) ?? null,
  };
}

/**
 * The active user this verified email signs in as, created on a first sign-in (recorded with the
 * user); permission_denied telling the person why when there is none, recorded before it is
 * thrown. The sign-in itself the caller records, with what it creates (signInEntry).
 */
export async function userForEmail(db: D1Db, email: string, verified: boolean, from: SignInRequest, nowMs: number): Promise<UserRow> {
  const refuse = async (why: string, teamId: string | null, reason: string): Promise<never> => {
    await record(db, [entry(from, nowMs, { email, teamId, outcome: "denied", details: { reason } })]);
    throw new AppError("permission_denied", why);
  };
  if (!verified) {
    return refuse(`your identity provider has not verified the email ${email}; verify it there and sign in again`, null, "unverified");
  }
  const domain = email.slice(email.lastIndexOf("@") + 1);
  const [known, team] = await Promise.all([usersByEmail(db, email), teamOfDomain(db, domain)]);
  const active = known.filter((u) => u.removedAtMs === null);
  const chosen = active.find((u) => u.teamId === team?.id) ?? (active.length === 1 ? active[0] : undefined);
  if (chosen) return chosen;
  if (active.length > 1) {
    return refuse(
      `${email} is a user of several teams here and none of them lists ${domain}; ask an admin to remove the others`,
      null,
      "ambiguous",
    );
  }
  if (!team) {
    return refuse(
      `no team of this deployment lets people of ${domain} sign in; ask your admin to add ${domain} to your team's sso_domains`,
      null,
      "no_team",
    );
  }
  if (known.some((u) => u.teamId === team.id)) {
    return refuse(`${email} was removed from team ${team.name}; an admin of the team can add you again`, team.id, "removed");
  }
  const row: UserRow = {
    id: newId("usr"),
    teamId: team.id,
    email,
    role: team.ssoDefaultRole ?? "member",
    requestsPerMinute: null,
    maxConcurrentRuns: null,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    removedAtMs: null,
    personalKeyId: null,
  };
  const created = await provisionUser(db, row, [
    {
      ...entry(from, nowMs, { email, user: row, teamId: team.id, outcome: "ok" }),
      action: "user.add",
      target: { kind: "user", id: row.id, name: email, userId: row.id },
      details: { role: row.role, via: from.via, domain },
    },
  ]);
  if (created) return created;
  // Another sign-in of the same person created them a moment ago: that one is theirs.
  const again = (await usersByEmail(db, email)).find((u) => u.removedAtMs === null && u.teamId === team.id);
  if (!again) throw new AppError("aborted", "your account was being created by another sign-in; try again");
  return again;
}

/** A sign-in that failed before any email was known (a bad assertion, a refused code). */
export async function recordSignInFailure(db: D1Db, from: SignInRequest, nowMs: number, reason: string, email?: string): Promise<void> {
  await record(db, [entry(from, nowMs, { email: email ?? null, teamId: null, outcome: "failed", details: { reason } })]);
}

/** The entry of a sign-in that succeeded, for the batch of the session it opens (or alone, for Access). */
export function signInEntry(from: SignInRequest, atMs: number, user: UserRow): AuditEntry {
  return entry(from, atMs, { email: user.email, user, teamId: user.teamId, outcome: "ok" });
}

/** Records a sign-in on its own (Cloudflare Access, which opens no session). */
export async function recordSignIn(db: D1Db, from: SignInRequest, atMs: number, user: UserRow): Promise<void> {
  await record(db, [signInEntry(from, atMs, user)]);
}

function entry(
  from: SignInRequest,
  atMs: number,
  what: { email: string | null; user?: UserRow; teamId: string | null; outcome: AuditEntry["outcome"]; details?: Record<string, unknown> },
): AuditEntry {
  const id = what.user?.id ?? what.email ?? "unknown";
  return {
    atMs,
    actor: { kind: "sso", id, email: what.email },
    action: "sso.sign_in",
    target: { kind: "user", id, name: what.email, userId: what.user?.id ?? null },
    teamId: what.teamId,
    outcome: what.outcome,
    ip: from.ip,
    userAgent: from.userAgent,
    details: { via: from.via, ...what.details },
  };
}

/** A sign-in's record is best effort once the sign-in itself is decided: its failure is logged, never the person's. */
async function record(db: D1Db, entries: [AuditEntry, ...AuditEntry[]]): Promise<void> {
  await recordAudit(db, entries).catch((err: unknown) => console.error("byok-edge: audit of a sign-in failed:", errorKind(err)));
}
