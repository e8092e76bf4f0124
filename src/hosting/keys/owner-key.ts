// What the admin API does with a caller's personal key (docs/keys-at-rest.md#personal-keys):
// a personal credential is sealed with the key the caller's own token opens, or with a new key
// wrapped for that token when the caller has none; a token its owner issues, or unlocks, while
// holding the key gets a wrap of its own. Nothing here can open the key without such a token.
import { AppError } from "../../core/errors.ts";
import type { D1Db } from "../store/db.ts";
import { installPersonalKey, personalKeyState } from "../store/personal-key-rows.ts";
import {
  createPersonalKey,
  type OwnerSecret,
  openPersonalKey,
  type PersonalKey,
  SEALED_MESSAGE,
  unwrapPersonalKey,
  wrapPersonalKey,
} from "./personal-key.ts";

/** A caller who may hold a personal key: a user, with the token their request carried. */
export interface KeyHolder {
  userId: string;
  secret: OwnerSecret;
}

/**
 * The key a personal credential written now is sealed with. A user whose key is held by live
 * tokens must write with one of them; one with none (never had one, or lost it) gets a new key,
 * wrapped for the token of this request.
 */
export async function personalKeyForWrite(db: D1Db, holder: KeyHolder, nowMs: number): Promise<PersonalKey> {
  const state = await personalKeyState(db, holder.userId, nowMs);
  if (state.personalKeyId !== null && state.liveWraps > 0) {
    const key = await openPersonalKey(holder.secret, holder.userId, state.personalKeyId);
    if (!key) throw new AppError("failed_precondition", SEALED_MESSAGE);
    return key;
  }
  const { key, raw } = await createPersonalKey();
  try {
    const wrap = await wrapPersonalKey(holder.secret, holder.userId, raw, key.idText);
    const installed = await installPersonalKey(db, holder.userId, state.personalKeyId, {
      keyId: key.idText,
      tokenId: holder.secret.secretId,
      wrap,
    });
    if (!installed) throw new AppError("aborted", "your personal key was created by another request at the same moment; try again");
    return key;
  } finally {
    raw.fill(0);
  }
}

/** A wrap of the holder's current key for another secret of theirs (a token they issue or unlock), or undefined when the holder's own secret holds none. */
export async function wrapForSecret(
  holder: KeyHolder,
  currentKeyId: string | null,
  other: OwnerSecret,
): Promise<{ wrap: string; keyId: string } | undefined> {
  if (currentKeyId === null) return undefined;
  const raw = await unwrapPersonalKey(holder.secret, holder.userId, currentKeyId);
  if (!raw) return undefined;
  try {
    return { wrap: await wrapPersonalKey(other, holder.userId, raw, currentKeyId), keyId: currentKeyId };
  } finally {
    raw.fill(0);
  }
}
