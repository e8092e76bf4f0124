// Personal keys in D1 (docs/keys-at-rest.md#personal-keys), by intent: a user's key id and
// how many live tokens hold a wrap of it, a new key installed with the wrap of the token that
// made it, and a token's wrap set when its owner unlocks it. Only wraps are stored, never a key.
import { and, count, eq, gt, isNotNull, isNull, ne, or, type SQL, sql } from "drizzle-orm";
import { type AuditEntry, auditInsertIfChanged } from "./audit-rows.ts";
import type { D1Db } from "./db.ts";
import { tokens, users } from "./schema/accounts.ts";

export interface PersonalKeyState {
  /** Null: none yet, or lost with the last token that held it. */
  personalKeyId: string | null;
  /** Tokens neither revoked nor expired that hold a wrap. */
  liveWraps: number;
}

export async function personalKeyState(db: D1Db, userId: string, nowMs: number): Promise<PersonalKeyState> {
  const [user, wraps] = await db.batch([
    db.select({ personalKeyId: users.personalKeyId }).from(users).where(eq(users.id, userId)),
    db
      .select({ n: count() })
      .from(tokens)
      .where(and(eq(tokens.userId, userId), isNotNull(tokens.personalKeyWrap), liveToken(nowMs))),
  ]);
  return { personalKeyId: user[0]?.personalKeyId ?? null, liveWraps: wraps[0]?.n ?? 0 };
}

/**
 * Makes `keyId` the user's personal key, wrapped for `tokenId`, only while the user's key is
 * still `replaces` (two first credentials at once: one key wins). False when another won.
 */
export async function installPersonalKey(
  db: D1Db,
  userId: string,
  replaces: string | null,
  install: { keyId: string; tokenId: string; wrap: string },
): Promise<boolean> {
  const [changed] = await db.batch([
    db
      .update(users)
      .set({ personalKeyId: install.keyId })
      .where(and(eq(users.id, userId), replaces === null ? isNull(users.personalKeyId) : eq(users.personalKeyId, replaces))),
    db
      .update(tokens)
      .set({ personalKeyWrap: install.wrap })
      .where(and(eq(tokens.id, install.tokenId), eq(tokens.userId, userId), userKeyIs(userId, install.keyId))),
    // What other tokens held was the lost key's wrap: nothing opens with it any more.
    db
      .update(tokens)
      .set({ personalKeyWrap: null })
      .where(and(eq(tokens.userId, userId), ne(tokens.id, install.tokenId), userKeyIs(userId, install.keyId))),
  ]);
  return changed.meta.changes === 1;
}

/** Gives a live token of the user a wrap of their current key `keyId`; false when the token or the key changed. */
export async function setTokenWrap(
  db: D1Db,
  token: { id: string; userId: string },
  keyId: string,
  wrap: string,
  nowMs: number,
  audit: [AuditEntry, ...AuditEntry[]],
): Promise<boolean> {
  const [changed] = await db.batch([
    db
      .update(tokens)
      .set({ personalKeyWrap: wrap })
      .where(and(eq(tokens.id, token.id), eq(tokens.userId, token.userId), liveToken(nowMs), userKeyIs(token.userId, keyId))),
    auditInsertIfChanged(db, audit),
  ]);
  return changed.meta.changes === 1;
}

/**
 * The statement a revocation adds to its batch: when no live token of the user holds a wrap any
 * more, their personal key is gone, and they are told to enter their personal keys again.
 */
export function forgetPersonalKeyIfUnheld(db: D1Db, userId: string, nowMs: number) {
  const held = db
    .select({ one: sql`1` })
    .from(tokens)
    .where(and(eq(tokens.userId, userId), isNotNull(tokens.personalKeyWrap), liveToken(nowMs)));
  return db
    .update(users)
    .set({ personalKeyId: null })
    .where(and(eq(users.id, userId), isNotNull(users.personalKeyId), sql`NOT EXISTS ${held}`));
}

function liveToken(nowMs: number): SQL | undefined {
  return and(isNull(tokens.revokedAtMs), or(isNull(tokens.expiresAtMs), gt(tokens.expiresAtMs, nowMs)));
}

function userKeyIs(userId: string, keyId: string): SQL {
  return sql`(SELECT ${users.personalKeyId} FROM ${users} WHERE ${users.id} = ${userId}) = ${keyId}`;
}
