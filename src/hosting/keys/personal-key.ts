// Personal keys sealed to their owner (docs/keys-at-rest.md#personal-keys): each user's
// personal credentials are encrypted with a personal key of 32 random bytes, stored only
// wrapped under keys derived (HKDF-SHA-256, a salt per wrap) from the user's own tokens, so
// neither D1 with KEY_ENCRYPTION_KEY nor a token issued by someone else opens them.
import { fromBase64, toBase64Url } from "../../core/bytes.ts";
import { AppError } from "../../core/errors.ts";
import type { DataKey } from "./data-key.ts";
import { importAesKey, keyIdOf, open, parseEnvelope, seal } from "./sealed-envelope.ts";

const PERSONAL_KEY_BYTES = 32;
const SALT_BYTES = 16;
const WRAP_INFO = new TextEncoder().encode("byok-edge personal key wrap v1");

/** What a personal credential needs at its provider call, and what an admin-API write seals with. */
export interface PersonalKey extends DataKey {
  /** keyIdOf the raw key, as base64url: what users.personal_key_id and credentials.personal_key_id hold. */
  readonly idText: string;
}

/** A secret the caller holds (a token of theirs): its id, the HKDF base key made from it, and the wrap stored with it. */
export interface OwnerSecret {
  readonly secretId: string;
  readonly base: CryptoKey;
  readonly wrap: string | null;
}

/** The secret id of a request signed in by Cloudflare Access: no row holds it, so no wrap is ever made for it. */
export const ACCESS_SECRET_PREFIX = "access:";

/** The HKDF base key of a presented token: derives wrapping keys, cannot be read back. */
export function ownerSecretOf(secretId: string, tokenText: string, wrap: string | null): Promise<OwnerSecret> {
  return crypto.subtle
    .importKey("raw", new TextEncoder().encode(tokenText), "HKDF", false, ["deriveBits"])
    .then((base) => ({ secretId, base, wrap }));
}

/** A new personal key: the usable key and its raw bytes, which the caller wraps and then zeroes. */
export async function createPersonalKey(): Promise<{ key: PersonalKey; raw: Uint8Array }> {
  const raw = crypto.getRandomValues(new Uint8Array(PERSONAL_KEY_BYTES));
  return { key: await personalKeyOf(raw), raw };
}

/** The key from raw bytes (as the edge hands them to a conversation object). */
export async function personalKeyOf(raw: Uint8Array): Promise<PersonalKey> {
  if (raw.length !== PERSONAL_KEY_BYTES) throw new AppError("internal", "a personal key has 32 bytes");
  const [id, key] = await Promise.all([keyIdOf(raw), importAesKey(raw)]);
  return { id, key, idText: toBase64Url(id) };
}

/** The personal key wrapped for one secret, as stored beside it: `<salt>.<envelope>`. */
export async function wrapPersonalKey(secret: OwnerSecret, userId: string, raw: Uint8Array, keyIdText: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const wrapping = await wrappingKey(secret, salt);
  return `${toBase64Url(salt)}.${await seal(wrapping.key, wrapping.id, contextOf(userId, secret.secretId, keyIdText), raw)}`;
}

/**
 * The raw personal key from the secret's wrap (the caller zeroes it), or undefined when the secret
 * has no wrap, or one of a personal key that is no longer the user's (`currentKeyId`).
 */
export async function unwrapPersonalKey(secret: OwnerSecret, userId: string, currentKeyId: string | null): Promise<Uint8Array | undefined> {
  if (!secret.wrap || !currentKeyId) return undefined;
  const [saltText, envelopeText] = secret.wrap.split(".");
  const salt = saltText ? fromBase64(saltText) : undefined;
  const envelope = envelopeText ? parseEnvelope(envelopeText) : "malformed";
  if (!salt || typeof envelope !== "object") return undefined;
  const wrapping = await wrappingKey(secret, salt);
  const raw = await open(wrapping.key, envelope, contextOf(userId, secret.secretId, currentKeyId));
  if (raw && raw.length !== PERSONAL_KEY_BYTES) {
    raw.fill(0);
    return undefined;
  }
  return raw;
}

/** Unwraps and imports: the caller's personal key, or undefined when this secret holds none. */
export async function openPersonalKey(secret: OwnerSecret, userId: string, currentKeyId: string | null): Promise<PersonalKey | undefined> {
  const raw = await unwrapPersonalKey(secret, userId, currentKeyId);
  if (!raw) return undefined;
  try {
    return await personalKeyOf(raw);
  } finally {
    raw.fill(0);
  }
}

/** What a request without the right secret is told (docs/keys-at-rest.md#personal-keys). */
export const SEALED_MESSAGE = "personal credentials are sealed to your own tokens; unlock this token from one of yours";
/** What a credential sealed under a personal key nobody holds any more is told. */
export function lostMessage(credentialId: string): string {
  return `personal credential ${credentialId} was sealed to tokens of yours that are all revoked or expired, so it cannot be opened; enter the key again (POST /api/v1/credentials/${credentialId}/rotate), or, if it had headers, delete it and create it again`;
}

async function wrappingKey(secret: OwnerSecret, salt: Uint8Array): Promise<DataKey> {
  const bits = new Uint8Array(await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info: WRAP_INFO }, secret.base, 256));
  try {
    const [id, key] = await Promise.all([keyIdOf(bits), importAesKey(bits)]);
    return { id, key };
  } finally {
    bits.fill(0);
  }
}

/** Whose wrap it is and of which personal key: a wrap copied to another token, user or key does not open. */
function contextOf(userId: string, secretId: string, keyIdText: string): string[] {
  if (!userId || !secretId || !keyIdText) throw new AppError("internal", "a personal key wrap needs its user, secret and key ids");
  return ["personal-key-wrap", userId, secretId, keyIdText];
}
