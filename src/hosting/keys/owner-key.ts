// What the admin API does with a caller's personal key (docs/keys-at-rest.md#personal-keys):
// a personal credential is sealed with the key the caller's own token opens, or with a new key
// wrapped for that token when the caller has none; a token its owner issues, or unlocks, while
// holding the key gets a wrap of its own. Nothing here can open the key without such a token.
import { AppError } from "../../core/errors.ts";
import type { D1Db } from "../store/db.ts";
import { installPersonalKey, personalKeyState } from "../store/personal-key-rows.ts";
import {
  ACCESS_SECRET_PREFIX,
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
 * wrapped for the token of this request. The token's wrap is read here, not from the token check,
 * which may be up to 5 s old.
 */
export async function personalKeyForWrite(db: D1Db, holder: KeyHolder, nowMs: number): Promise<PersonalKey> {
  const state = await personalKeyState(db, holder.userId, holder.secret.secretId, nowMs);
  const secret = { ...holder.secret, wrap: state.callerWrap };
  if (state.heldKeyId !== null) {
    const key = await openPersonalKey(secret, holder.userId, state.heldKeyId);
    if (!key) throw new AppError("failed_precondition", SEALED_MESSAGE);
    return key;
  }
  if (holder.secret.secretId.startsWith(ACCESS_SECRET_PREFIX)) {
    throw new AppError(
      "failed_precondition",
      "personal credentials are sealed to a token or sign-in session of yours, and a request through Cloudflare Access alone carries neither; issue yourself a token and use it",
    );
  }
  const { key, raw } = await createPersonalKey();
  try {
    const wrap = await wrapPersonalKey(secret, holder.userId, raw, key.idText);
    const install = { keyId: key.idText, tokenId: secret.secretId, wrap };
    if (!(await installPersonalKey(db, holder.userId, state.storedKeyId, install, nowMs))) {
      throw new AppError("aborted", "your personal key was created by another request at the same moment; try again");
    }
    return key;
  } finally {
    raw.fill(0);
  }
}

/** Why no wrap could be made for another secret: the user holds no key, or the request's own token does not hold it. */
export type NoWrap = "no-key" | "not-held";

/** A wrap of the holder's current key for another secret of theirs (a token they issue or unlock). */
export async function wrapForSecret(
  db: D1Db,
  holder: KeyHolder,
  other: OwnerSecret,
  nowMs: number,
): Promise<{ wrap: string; keyId: string } | NoWrap> {
  const state = await personalKeyState(db, holder.userId, holder.secret.secretId, nowMs);
  if (state.heldKeyId === null) return "no-key";
  const raw = await unwrapPersonalKey({ ...holder.secret, wrap: state.callerWrap }, holder.userId, state.heldKeyId);
  if (!raw) return "not-held";
  try {
    return { wrap: await wrapPersonalKey(other, holder.userId, raw, state.heldKeyId), keyId: state.heldKeyId };
  } finally {
    raw.fill(0);
  }
}
