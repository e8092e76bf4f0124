// A team's data key for encrypting a credential (docs/keys-at-rest.md): the stored one,
// or a new one created on the team's first credential and stored wrapped by the KEK.
// Without KEY_ENCRYPTION_KEY this fails with failed_precondition before anything is written.
import { createDataKey, type DataKey, unwrapDataKey } from "./data-key.ts";
import type { KekEnv } from "./kek.ts";
import { AppError } from "../../core/errors.ts";
import type { D1Db } from "../store/db.ts";
import { setTeamDataKeyOnce, teamById } from "../store/team-rows.ts";

export async function teamDataKey(env: KekEnv, db: D1Db, teamId: string): Promise<DataKey> {
  const team = await teamById(db, teamId);
  if (!team) throw new AppError("not_found", `team ${teamId} not found`);
  if (team.wrappedDataKey) return unwrapDataKey(env, team.wrappedDataKey);
  const created = await createDataKey(env);
  const stored = await setTeamDataKeyOnce(db, teamId, created.wrapped, Date.now());
  // Another request created the team's key first: use that one, so every credential opens with it.
  if (stored && stored !== created.wrapped) return unwrapDataKey(env, stored);
  return created.dataKey;
}
