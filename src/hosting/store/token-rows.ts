// User tokens in D1, by intent: issue, list, revoke, and the one lookup every
// request with a user token depends on (behind the cache in src/hosting/auth/token-cache.ts).
import { and, asc, count, eq, gt, isNull, lt, or } from "drizzle-orm";
import { type AuditEntry, auditInsert, auditInsertIfChanged } from "./audit-rows.ts";
import { type D1Db, newId } from "./db.ts";
import { forgetPersonalKeyIfUnheld, heldPersonalKeyId } from "./personal-key-rows.ts";
import { type Role, type TokenKind, tokens, users } from "./schema/accounts.ts";

export type TokenRow = typeof tokens.$inferSelect;

/** What a live token proves: its user, their team and role. */
export interface TokenOwner {
  tokenId: string;
  kind: TokenKind;
  userId: string;
  teamId: string;
  role: Role;
  email: string;
  expiresAtMs: number | null;
  lastUsedAtMs: number | null;
  /** The user's personal key id and this token's wrap of it (docs/keys-at-rest.md#personal-keys). */
  personalKeyId: string | null;
  personalKeyWrap: string | null;
}

/** Who issued a token for someone else; null when its own user did. */
export interface IssuedBy {
  kind: "operator" | "user" | "local" | "sso";
  id: string;
  email: string | null;
}

export async function issueToken(
  db: D1Db,
  token: {
    /** Chosen by the caller when the token's wrap is made before it is stored (its id is in the wrap). */
    id?: string;
    userId: string;
    name: string;
    tokenHash: string;
    expiresAtMs: number | null;
    issuedBy: IssuedBy | null;
    personalKeyWrap?: string | null;
    /** A sign-in session rather than a bearer token (docs/hosting.md#sessions). */
    kind?: TokenKind;
  },
  nowMs: number,
  audit: (token: TokenRow) => [AuditEntry, ...AuditEntry[]],
): Promise<TokenRow> {
  const { issuedBy, id, personalKeyWrap, kind, ...fields } = token;
  const row: TokenRow = {
    id: id ?? newId(kind === "session" ? "ses" : "tok"),
    kind: kind ?? "token",
    ...fields,
    personalKeyWrap: personalKeyWrap ?? null,
    createdAtMs: nowMs,
    lastUsedAtMs: null,
    revokedAtMs: null,
    issuedByKind: issuedBy?.kind ?? null,
    issuedById: issuedBy?.id ?? null,
    issuedByEmail: issuedBy?.email ?? null,
  };
  await db.batch([db.insert(tokens).values(row), auditInsert(db, audit(row))]);
  return row;
}

/** Bearer tokens (not sessions) neither revoked nor expired. */
export async function liveTokenCount(db: D1Db, userId: string, nowMs: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(tokens)
    .where(
      and(
        eq(tokens.userId, userId),
        eq(tokens.kind, "token"),
        isNull(tokens.revokedAtMs),
        or(isNull(tokens.expiresAtMs), gt(tokens.expiresAtMs, nowMs)),
      ),
    );
  return row?.n ?? 0;
}

/** The user's bearer tokens, revoked ones too; their sign-in sessions are not listed. */
export async function tokensOfUser(db: D1Db, userId: string): Promise<TokenRow[]> {
  return db
    .select()
    .from(tokens)
    .where(and(eq(tokens.userId, userId), eq(tokens.kind, "token")))
    .orderBy(asc(tokens.createdAtMs), asc(tokens.id))
    .all();
}

export async function tokenById(db: D1Db, id: string): Promise<TokenRow | undefined> {
  return db.select().from(tokens).where(eq(tokens.id, id)).get();
}

/**
 * Revokes once; a second revoke keeps the first time and records nothing. The token's wrap of its
 * user's personal key goes with it, and the key itself when no live token holds one any more.
 */
export async function revokeToken(
  db: D1Db,
  token: { id: string; userId: string },
  nowMs: number,
  audit: [AuditEntry, ...AuditEntry[]],
): Promise<void> {
  await db.batch([
    db
      .update(tokens)
      .set({ revokedAtMs: nowMs, personalKeyWrap: null })
      .where(and(eq(tokens.id, token.id), isNull(tokens.revokedAtMs))),
    auditInsertIfChanged(db, audit),
    forgetPersonalKeyIfUnheld(db, token.userId, nowMs),
  ]);
}

/** The owner of a live token by its hash: not revoked, not expired, its user not removed. */
export async function ownerOfTokenHash(db: D1Db, tokenHash: string, nowMs: number): Promise<TokenOwner | undefined> {
  return db
    .select({
      tokenId: tokens.id,
      kind: tokens.kind,
      userId: users.id,
      teamId: users.teamId,
      role: users.role,
      email: users.email,
      expiresAtMs: tokens.expiresAtMs,
      lastUsedAtMs: tokens.lastUsedAtMs,
      personalKeyId: heldPersonalKeyId(users.id, nowMs),
      personalKeyWrap: tokens.personalKeyWrap,
    })
    .from(tokens)
    .innerJoin(users, eq(users.id, tokens.userId))
    .where(
      and(
        eq(tokens.tokenHash, tokenHash),
        isNull(tokens.revokedAtMs),
        or(isNull(tokens.expiresAtMs), gt(tokens.expiresAtMs, nowMs)),
        isNull(users.removedAtMs),
      ),
    )
    .get();
}

/** Deletes sign-in sessions that ended before `beforeMs`: they open nothing and are never listed, so nothing is lost. */
export async function deleteEndedSessions(db: D1Db, beforeMs: number): Promise<void> {
  await db
    .delete(tokens)
    .where(and(eq(tokens.kind, "session"), lt(tokens.expiresAtMs, beforeMs)))
    .run();
}

/** Sets last_used_at unless another isolate did so within `intervalMs`. */
export async function touchToken(db: D1Db, id: string, nowMs: number, intervalMs: number): Promise<void> {
  await db
    .update(tokens)
    .set({ lastUsedAtMs: nowMs })
    .where(and(eq(tokens.id, id), or(isNull(tokens.lastUsedAtMs), lt(tokens.lastUsedAtMs, nowMs - intervalMs))))
    .run();
}
