// Rotating a team's data key (docs/keys-at-rest.md#rotating-the-data-keys): a new data key
// becomes the one every write seals with, the old one stays as previous so reads go on, every
// stored secret of the team is re-encrypted under the new one, and then the old one is dropped.
// Writes that sealed with the old key after the switch are refused by their condition and seal
// again (withTeamDataKey), so nothing is left under the dropped key.
import { AppError } from "../../core/errors.ts";
import type { D1Db } from "../store/db.ts";
import {
  beginDataKeyRotation,
  endDataKeyRotation,
  type ResealedRow,
  replaceSealedRows,
  type SealedRow,
  sealedRowsOf,
} from "../store/data-key-rows.ts";
import { teamById } from "../store/team-rows.ts";
import { decryptCredentialKey, encryptCredentialKey, NO_KEY } from "./credential-key.ts";
import { createDataKey, type DataKey, unwrapDataKey } from "./data-key.ts";
import type { KekEnv } from "./kek.ts";
import { parseEnvelope, sameKeyId } from "./sealed-envelope.ts";
import { openHeaders, sealHeaders } from "./sealed-headers.ts";

/** Rows per D1 batch: well inside D1's limits, few round trips for a team's rows. */
const BATCH_ROWS = 50;
/** Passes over a team's rows: each picks up what the previous one found rewritten meanwhile. */
const PASSES = 5;
/** Tries to start a team's rotation when its key changes under it (another rotation, its first key). */
const STARTS = 3;

export interface TeamRotation {
  /** False for a team without a data key: nothing of it is sealed. */
  rotated: boolean;
  /** Credential keys re-encrypted under the new data key. */
  credentialKeys: number;
  /** Header sets of credentials and models re-encrypted, or sealed for the first time from a row written before sealing. */
  headerSets: number;
}

/** Where tests pause a rotation between its steps, to write beside it. */
export interface RotationHooks {
  /** After the new key became the team's, before any row is re-encrypted. */
  afterSwitch?: () => Promise<void>;
}

/** Rotates one team's data key, or finishes a rotation that stopped halfway (the previous key is still set). */
export async function rotateTeamDataKey(env: KekEnv, db: D1Db, teamId: string, hooks: RotationHooks = {}): Promise<TeamRotation> {
  for (let start = 0; start < STARTS; start++) {
    const team = await teamById(db, teamId);
    if (!team?.wrappedDataKey) return { rotated: false, credentialKeys: 0, headerSets: 0 };
    let from = team.previousWrappedDataKey;
    const to = team.wrappedDataKey;
    if (from === null) {
      const created = await createDataKey(env, teamId);
      if (!(await beginDataKeyRotation(db, teamId, to, created.wrapped, Date.now()))) continue;
      from = to;
      await hooks.afterSwitch?.();
      const counts = await reseal(db, teamId, await unwrapDataKey(env, teamId, from), created.dataKey);
      await endDataKeyRotation(db, teamId, from, Date.now());
      return { rotated: true, ...counts };
    }
    // A rotation stopped halfway: finish it.
    const counts = await reseal(db, teamId, await unwrapDataKey(env, teamId, from), await unwrapDataKey(env, teamId, to));
    await endDataKeyRotation(db, teamId, from, Date.now());
    return { rotated: true, ...counts };
  }
  throw new AppError("aborted", `team ${teamId}'s data key kept changing while its rotation started; run it again`);
}

/** Re-encrypts, batch by batch, every row of the team still sealed with `from` or still in plain text. */
async function reseal(db: D1Db, teamId: string, from: DataKey, to: DataKey): Promise<Omit<TeamRotation, "rotated">> {
  const counts = { credentialKeys: 0, headerSets: 0 };
  for (let pass = 0; pass < PASSES; pass++) {
    const pending = (await sealedRowsOf(db, teamId)).filter((row) => needsReseal(row, from));
    if (pending.length === 0) return counts;
    for (let at = 0; at < pending.length; at += BATCH_ROWS) {
      const batch = await Promise.all(pending.slice(at, at + BATCH_ROWS).map((row) => resealRow(teamId, row, from, to)));
      // A row rewritten since it was read is left as the writer left it: under the new key,
      // since writers seal only with the team's current key. The next pass checks.
      await replaceSealedRows(
        db,
        batch.map((b) => b.row),
      );
      for (const b of batch) {
        counts.credentialKeys += b.credentialKey;
        counts.headerSets += b.headerSet;
      }
    }
  }
  throw new AppError("aborted", `team ${teamId}'s rows kept changing during the data-key rotation; run it again`);
}

function needsReseal(row: SealedRow, from: DataKey): boolean {
  return row.headersJson !== null || sealedWith(row.encryptedKey, from) || sealedWith(row.sealedHeaders, from);
}

function sealedWith(text: string | null, key: DataKey): boolean {
  if (!text || text === NO_KEY) return false;
  const envelope = parseEnvelope(text);
  return typeof envelope === "object" && sameKeyId(envelope.keyId, key.id);
}

async function resealRow(
  teamId: string,
  row: SealedRow,
  from: DataKey,
  to: DataKey,
): Promise<{ row: ResealedRow; credentialKey: number; headerSet: number }> {
  const kind = row.table === "credentials" ? "credential" : row.table === "models" ? "model" : "team-otlp";
  const owner = { teamId, kind, id: row.id } as const;
  let encryptedKey = row.encryptedKey;
  let credentialKey = 0;
  if (row.table === "credentials" && sealedWith(row.encryptedKey, from) && row.encryptedKey) {
    const credentialOwner = { teamId, credentialId: row.id };
    encryptedKey = await encryptCredentialKey(to, credentialOwner, await decryptCredentialKey(from, credentialOwner, row.encryptedKey));
    credentialKey = 1;
  }
  const headers =
    row.headersJson !== null
      ? (JSON.parse(row.headersJson) as Record<string, string>)
      : row.sealedHeaders && sealedWith(row.sealedHeaders, from)
        ? await openHeaders(from, owner, row.sealedHeaders)
        : undefined;
  const stored = headers ? await sealHeaders(to, owner, headers) : undefined;
  return {
    row: {
      from: row,
      encryptedKey,
      sealedHeaders: stored ? stored.sealedHeaders : row.sealedHeaders,
      headerNamesJson: stored ? stored.headerNamesJson : row.headerNamesJson,
    },
    credentialKey,
    headerSet: stored?.sealedHeaders ? 1 : 0,
  };
}
