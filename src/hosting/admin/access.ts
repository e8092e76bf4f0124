// The role rules of the admin API (docs/hosting.md#roles), as pure functions:
// what a principal may do with a team or a user. Anything outside the caller's
// reach is 404 not_found, so ids do not leak existence; 403 permission_denied is
// only for what the caller can see but not change.
import type { Principal } from "../auth/principal.ts";
import { AppError } from "../../core/errors.ts";
import type { Role } from "../store/schema/accounts.ts";
import { LOCAL_PRINCIPAL_ID, LOCAL_TEAM_ID } from "../store/local-account.ts";
import { invalidField } from "./admin-errors.ts";

/** manage: operator or the team's admin; view: a member of the team; none: anyone else. */
type Reach = "manage" | "view" | "none";

export function teamReach(principal: Principal, teamId: string): Reach {
  // The single user's own team holds only its keys: not a team anyone manages, the operator included.
  if (teamId === LOCAL_TEAM_ID) return "none";
  if (principal.kind === "operator") return "manage";
  if (principal.kind === "user" && principal.teamId === teamId) return principal.role === "admin" ? "manage" : "view";
  return "none";
}

/** A user: managed by the operator and their team's admins; a member sees only themselves. */
export function userReach(principal: Principal, user: { id: string; teamId: string }): Reach {
  const team = teamReach(principal, user.teamId);
  if (team === "manage") return "manage";
  return principal.kind === "user" && principal.id === user.id ? "view" : "none";
}

/** The resource if the caller may do `need` with it; otherwise the error the contract names. */
export function within<T>(resource: T | undefined, reach: (resource: T) => Reach, need: "manage" | "view", what: string): T {
  const got = resource === undefined ? "none" : reach(resource);
  if (resource === undefined || got === "none") throw new AppError("not_found", `${what} not found`);
  if (need === "manage" && got !== "manage") {
    throw new AppError("permission_denied", `only the operator or an admin of its team can change ${what}`);
  }
  return resource;
}

/** Operator-only endpoints: unimplemented without ADMIN_TOKEN, permission_denied for anyone else. */
export function requireOperator(principal: Principal, env: { ADMIN_TOKEN?: string }): void {
  if (!env.ADMIN_TOKEN) {
    throw new AppError("unimplemented", "the operator API is off: set the ADMIN_TOKEN secret (docs/hosting.md#secrets)");
  }
  if (principal.kind !== "operator") throw new AppError("permission_denied", "only the operator (ADMIN_TOKEN) can do this");
}

/** Whose a credential or model is: a user's own (scope "user") or their team's (scope "team"). */
export interface Owned {
  teamId: string;
  scope: "user" | "team";
  ownerUserId: string | null;
}

/** Whose credentials and models a principal keeps: a user's, or the single user's own one-user team's. */
export interface Account {
  id: string;
  teamId: string;
  role: Role;
}

/** A member of its own team: it keeps personal credentials and models only. */
const LOCAL_ACCOUNT: Account = { id: LOCAL_PRINCIPAL_ID, teamId: LOCAL_TEAM_ID, role: "member" };

function accountOf(principal: Principal): Account | undefined {
  if (principal.kind === "user") return { id: principal.id, teamId: principal.teamId, role: principal.role };
  return principal.kind === "local" ? LOCAL_ACCOUNT : undefined;
}

/**
 * A credential or model: a personal one is seen and changed by its owner alone (and the
 * operator), not even by the team's admins; a team one is seen by the team, changed by its admins.
 */
export function ownedReach(principal: Principal, item: Owned): Reach {
  if (principal.kind === "operator") return "manage";
  const account = accountOf(principal);
  if (!account || account.teamId !== item.teamId) return "none";
  if (item.scope === "team") return account.role === "admin" ? "manage" : "view";
  return item.ownerUserId === account.id ? "manage" : "none";
}

/** Who creates a credential or model of `scope`: a team's user or the single user; scope "team" only a team's admins. */
export function requireCreator(principal: Principal, scope: "user" | "team", what: string): Account {
  const account = accountOf(principal);
  if (!account) {
    throw new AppError("permission_denied", `${what}s belong to a team's users; create them with a user token (byok_…)`);
  }
  if (scope === "team" && principal.kind === "local") {
    throw invalidField("body.scope", `the single user (BYOK_TOKEN) has no team: create the ${what} with scope "user"`);
  }
  if (scope === "team" && account.role !== "admin") {
    throw new AppError("permission_denied", `only an admin of the team can create a team ${what}; members create scope "user"`);
  }
  return account;
}

/** The credentials and models a principal lists: its own account's, or (the operator) every team's or one's. */
export function visibleScope(principal: Principal, teamId: string | undefined): { userId: string; teamId: string } | { teamId?: string } {
  const account = accountOf(principal);
  if (account) return { userId: account.id, teamId: account.teamId };
  return teamId ? { teamId } : {};
}
