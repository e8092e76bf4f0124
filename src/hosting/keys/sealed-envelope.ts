// The versioned envelope a stored secret is kept in (docs/keys-at-rest.md#the-envelope):
// version byte, id of the key that sealed it, 12-byte random IV, AES-256-GCM ciphertext
// and tag, as base64url text. The header and the caller's context are the additional data.
import { fromBase64, toBase64Url } from "../../core/bytes.ts";

const VERSION = 1;
const KEY_ID_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + KEY_ID_BYTES;
const KEY_ID_LABEL = new TextEncoder().encode("byok-edge key id v1\0");

export interface Envelope {
  /** The id of the key that sealed it (keyIdOf). */
  keyId: Uint8Array;
  /** Version and key id, authenticated with the ciphertext. */
  header: Uint8Array;
  iv: Uint8Array;
  /** Ciphertext followed by the 16-byte tag. */
  sealed: Uint8Array;
}

/** A short public name for a raw key, so an envelope says which key opens it; it reveals nothing of the key. */
export async function keyIdOf(raw: Uint8Array): Promise<Uint8Array> {
  const labelled = new Uint8Array(KEY_ID_LABEL.length + raw.length);
  labelled.set(KEY_ID_LABEL);
  labelled.set(raw, KEY_ID_LABEL.length);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", labelled));
  labelled.fill(0);
  return digest.slice(0, KEY_ID_BYTES);
}

/** A raw 256-bit key as a non-extractable AES-GCM key. */
export function importAesKey(raw: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
}

/** Encrypts under `key` (named `keyId`) with a fresh IV; `context` says what the secret is and whose. */
export async function seal(key: CryptoKey, keyId: Uint8Array, context: readonly string[], plaintext: Uint8Array): Promise<string> {
  const header = new Uint8Array(HEADER_BYTES);
  header[0] = VERSION;
  header.set(keyId, 1);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: additionalData(header, context) }, key, plaintext),
  );
  const out = new Uint8Array(HEADER_BYTES + IV_BYTES + sealed.length);
  out.set(header);
  out.set(iv, HEADER_BYTES);
  out.set(sealed, HEADER_BYTES + IV_BYTES);
  return toBase64Url(out);
}

/** The parts of an envelope's text, or why it is not one. */
export function parseEnvelope(text: string): Envelope | "malformed" | "unsupported-version" {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return "malformed";
  const bytes = fromBase64(text);
  if (bytes === undefined) return "malformed";
  if (bytes[0] !== VERSION) return bytes.length === 0 ? "malformed" : "unsupported-version";
  if (bytes.length < HEADER_BYTES + IV_BYTES + TAG_BYTES) return "malformed";
  return {
    keyId: bytes.slice(1, HEADER_BYTES),
    header: bytes.slice(0, HEADER_BYTES),
    iv: bytes.slice(HEADER_BYTES, HEADER_BYTES + IV_BYTES),
    sealed: bytes.slice(HEADER_BYTES + IV_BYTES),
  };
}

/** The plaintext, or undefined when the tag does not verify: tampered, another key, or another context. */
export async function open(key: CryptoKey, envelope: Envelope, context: readonly string[]): Promise<Uint8Array | undefined> {
  try {
    const { iv, header, sealed } = envelope;
    return new Uint8Array(
      await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData: additionalData(header, context) }, key, sealed),
    );
  } catch {
    return undefined;
  }
}

export function sameKeyId(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** The header, then the context as a JSON array of strings (unambiguous, unlike joined text). */
function additionalData(header: Uint8Array, context: readonly string[]): Uint8Array {
  const tail = new TextEncoder().encode(JSON.stringify(context));
  const ad = new Uint8Array(header.length + tail.length);
  ad.set(header);
  ad.set(tail, header.length);
  return ad;
}
