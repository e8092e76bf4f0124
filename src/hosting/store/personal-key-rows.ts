// Personal keys in D1 (docs/keys-at-rest.md#personal-keys), by intent: a user's key id and
// how many live tokens hold a wrap of it, a new key installed with the wrap of the token that
// made it, and a token's wrap set when its owner unlocks it. Only wraps are stored, never a key.
import { and, eq, gt, isNotNull, isNull, ne, or, type SQL, sql } from "drizzle-orm";
import { type AuditEntry, auditInsertIfChanged } from "./audit-rows.ts";
import type { D1Db } from "./db.ts";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { tokens, users } from "./schema/accounts.ts";

export interface PersonalKeyState {
  /** The key id as stored; null: none yet, or lost with the last revoked token that held it. */
  storedKeyId: string | null;
  /** The key id while a live token holds it (heldPersonalKeyId), else null: lost. */
  heldKeyId: string | null;
  /** The wrap the calling token holds now (the token check's may be up to 5 s old). */
  callerWrap: string | null;
}

export async function personalKeyState(db: D1Db, userId: string, callerTokenId: string, nowMs: number): Promise<PersonalKeyState> {
  const [user, caller] = await db.batch([
    db
      .select({ stored: users.personalKeyId, held: heldPersonalKeyId(sql`${userId}`, nowMs) })
      .from(users)
      .where(eq(users.id, userId)),
    db
      .select({ wrap: tokens.personalKeyWrap })
      .from(tokens)
      .where(and(eq(tokens.id, callerTokenId), eq(tokens.userId, userId))),
  ]);
  return { storedKeyId: user[0]?.stored ?? null, heldKeyId: user[0]?.held ?? null, callerWrap: caller[0]?.wrap ?? null };
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
  nowMs: number,
): Promise<boolean> {
  const [changed] = await db.batch([
    db
      .update(users)
      .set({ personalKeyId: install.keyId })
      .where(
        and(
          eq(users.id, userId),
          replaces === null ? isNull(users.personalKeyId) : eq(users.personalKeyId, replaces),
          // The token that will hold it is live: a key nobody holds is never installed.
          sql`EXISTS ${db
            .select({ one: sql`1` })
            .from(tokens)
            .where(and(eq(tokens.id, install.tokenId), eq(tokens.userId, userId), liveToken(nowMs)))}`,
        ),
      ),
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
  return db
    .update(users)
    .set({ personalKeyId: null })
    .where(and(eq(users.id, userId), isNotNull(users.personalKeyId), sql`${heldPersonalKeyId(sql`${userId}`, nowMs)} IS NULL`));
}

/**
 * The user's personal key id while a live token holds a wrap of it, else null: a key whose last
 * holder expired (or was revoked) is lost, and says so (docs/keys-at-rest.md#personal-keys).
 * `userId` is a value or a column of the outer query; `nowMs` defaults to the database's clock.
 */
export function heldPersonalKeyId(userId: SQL | SQLiteColumn, nowMs?: number): SQL<string | null> {
  const now = nowMs ?? sql`CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;
  const holder = and(eq(tokens.userId, userId), isNotNull(tokens.personalKeyWrap), liveToken(now));
  return sql<
    string | null
  >`(SELECT CASE WHEN EXISTS (SELECT 1 FROM ${tokens} WHERE ${holder}) THEN u.personal_key_id END FROM ${users} u WHERE u.id = ${userId})`;
}

/** Neither revoked nor expired at `nowMs` (a number, or the database's clock). */
function liveToken(nowMs: number | SQL): SQL | undefined {
  return and(isNull(tokens.revokedAtMs), or(isNull(tokens.expiresAtMs), gt(tokens.expiresAtMs, nowMs)));
}

function userKeyIs(userId: string, keyId: string): SQL {
  return sql`(SELECT ${users.personalKeyId} FROM ${users} WHERE ${users.id} = ${userId}) = ${keyId}`;
}
