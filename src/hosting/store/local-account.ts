// The single user's rows in D1 (docs/hosting.md#the-single-user): "local" keeps stored
// credentials and models like a hosted member, so they need a user row and a team (for
// the data key that encrypts them). Both are made on its first credential; no team or user
// route reaches them, not even the operator's (src/hosting/admin/access.ts), no user token
// acts as "local", and their ids cannot clash with generated ones (`usr_…`, `team_…` + hex).
import { ne } from "drizzle-orm";
import { AppError } from "../../core/errors.ts";
import { type D1Db, isUniqueViolation } from "./db.ts";
import { teams, users } from "./schema/accounts.ts";

export const LOCAL_PRINCIPAL_ID = "local";
export const LOCAL_TEAM_ID = "team_local";
export const LOCAL_TEAM_NAME = "local (single user)";

/** Creates the single user's team and user rows unless they exist. */
export async function ensureLocalAccount(db: D1Db, nowMs: number): Promise<void> {
  try {
    await db.batch([
      db
        .insert(teams)
        .values({
          id: LOCAL_TEAM_ID,
          name: LOCAL_TEAM_NAME,
          monthlyTokenBudget: null,
          wrappedDataKey: null,
          createdAtMs: nowMs,
          updatedAtMs: nowMs,
        })
        .onConflictDoNothing({ target: teams.id }),
      db
        .insert(users)
        .values({
          id: LOCAL_PRINCIPAL_ID,
          teamId: LOCAL_TEAM_ID,
          email: "local@localhost",
          role: "member",
          requestsPerMinute: null,
          maxConcurrentRuns: null,
          createdAtMs: nowMs,
          updatedAtMs: nowMs,
          removedAtMs: null,
        })
        .onConflictDoNothing({ target: users.id }),
    ]);
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    throw new AppError(
      "failed_precondition",
      `a hosted team is named "${LOCAL_TEAM_NAME}", the name the single user's own team needs; rename that team first`,
    );
  }
}

/** Every team but the single user's own, which is not the operator's to manage. */
export const HOSTED_TEAMS = ne(teams.id, LOCAL_TEAM_ID);

/** Every user but the single user, whose row only anchors its credentials: reports name `local` by id, with no email. */
export const HOSTED_USERS = ne(users.id, LOCAL_PRINCIPAL_ID);
