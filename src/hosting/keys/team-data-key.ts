// A team's data key for encrypting a credential's key or a header value (docs/keys-at-rest.md):
// the stored one, or a new one created on the team's first secret and stored wrapped by the KEK.
// Without KEY_ENCRYPTION_KEY this fails with failed_precondition before anything is written.
import { createDataKey, type DataKey, unwrapDataKey } from "./data-key.ts";
import { parseEnvelope, sameKeyId } from "./sealed-envelope.ts";
import type { KekEnv } from "./kek.ts";
import { AppError } from "../../core/errors.ts";
import type { D1Db } from "../store/db.ts";
import { STALE_DATA_KEY } from "../store/data-key-rows.ts";
import { setTeamDataKeyOnce, teamById } from "../store/team-rows.ts";

/** A data key and the wrapped text it is stored as: a write sealed with it is stored only while the team still holds that text. */
export interface TeamDataKey {
  dataKey: DataKey;
  wrapped: string;
  /** During a data-key rotation: the key being replaced, which opens rows not yet re-encrypted. */
  previous?: DataKey;
}

/** The team's current data key, for reading what it sealed; writes go through withTeamDataKey. */
export async function teamDataKey(env: KekEnv, db: D1Db, teamId: string): Promise<TeamDataKey> {
  const team = await teamById(db, teamId);
  if (!team) throw new AppError("not_found", `team ${teamId} not found`);
  if (team.wrappedDataKey) {
    const dataKey = await unwrapDataKey(env, teamId, team.wrappedDataKey);
    const previous = team.previousWrappedDataKey ? await unwrapDataKey(env, teamId, team.previousWrappedDataKey) : undefined;
    return { dataKey, wrapped: team.wrappedDataKey, ...(previous && { previous }) };
  }
  const created = await createDataKey(env, teamId);
  const stored = await setTeamDataKeyOnce(db, teamId, created.wrapped, Date.now());
  // Another request created the team's key first: use that one, so every credential opens with it.
  if (stored && stored !== created.wrapped) return { dataKey: await unwrapDataKey(env, teamId, stored), wrapped: stored };
  return { dataKey: created.dataKey, wrapped: created.wrapped };
}

const ATTEMPTS = 3;

/**
 * Seals and writes with the team's current data key; when a data-key rotation replaced it
 * between the read and the write (the write is conditional on it), again with the new one, so
 * nothing is stored under a key the rotation then drops (docs/keys-at-rest.md#rotating-the-data-keys).
 */
export async function withTeamDataKey<T>(
  env: KekEnv,
  db: D1Db,
  teamId: string,
  write: (key: TeamDataKey) => Promise<T | typeof STALE_DATA_KEY>,
): Promise<Exclude<T, typeof STALE_DATA_KEY>> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const result = await write(await teamDataKey(env, db, teamId));
    if (result !== STALE_DATA_KEY) return result as Exclude<T, typeof STALE_DATA_KEY>;
  }
  throw new AppError("aborted", "the team's data key kept changing during this write (a data-key rotation); try again");
}

/** The one of the team's keys that sealed `sealed`: during a rotation a row may still be under the previous one. */
export function keyThatSealed(key: TeamDataKey, sealed: string): DataKey {
  const envelope = parseEnvelope(sealed);
  if (key.previous && typeof envelope === "object" && sameKeyId(envelope.keyId, key.previous.id)) return key.previous;
  return key.dataKey;
}
