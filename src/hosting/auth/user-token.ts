// The user token format: `byok_` + 32 random bytes in base64url (256 bits).
// Only its SHA-256 is stored (docs/hosting.md#tokens).
import { sha256Hex, toBase64Url } from "../../core/bytes.ts";

const PREFIX = "byok_";
const RANDOM_BYTES = 32;
const SHAPE = /^byok_[A-Za-z0-9_-]{43}$/;

export function newUserToken(): string {
  return PREFIX + toBase64Url(crypto.getRandomValues(new Uint8Array(RANDOM_BYTES)));
}

/** Whether a bearer token has the shape of a user token (worth a lookup). */
export function isUserTokenShape(token: string): boolean {
  return SHAPE.test(token);
}

/** What the tokens table stores: SHA-256 of the token, lowercase hex. */
export async function userTokenHash(token: string): Promise<string> {
  return sha256Hex(token);
}
