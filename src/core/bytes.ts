// Text forms of bytes: hex (blob ids, BidiAppend data), base64 (Connect error details)
// and base64url (tokens, sealed keys, page cursors). base64 comes from @bufbuild/protobuf.
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";

/** Lowercase hex, two digits per byte. */
export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const b of bytes) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** The bytes of a hex string (either case); undefined when it is not hex of whole bytes. */
export function fromHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  return base64Encode(bytes, "std");
}

/** base64url without padding (RFC 4648 §5): safe in URLs, headers and tokens. */
export function toBase64Url(bytes: Uint8Array): string {
  return base64Encode(bytes, "url");
}

/**
 * The bytes of base64 or base64url text, padded or not (white space is skipped); undefined
 * when it is not base64 (a length of 1 mod 4 cannot be), like fromHex.
 */
export function fromBase64(text: string): Uint8Array | undefined {
  try {
    return base64Decode(text);
  } catch {
    return undefined; // @bufbuild/protobuf throws a plain Error for text that is not base64
  }
}

/** Standard base64 without padding, as Connect encodes binary error details. */
export function toBase64NoPadding(bytes: Uint8Array): string {
  return base64Encode(bytes, "std_raw");
}

/** The chunks joined into one array, in order. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}

/** SHA-256 of a text's UTF-8, lowercase hex: how a secret is looked up without being stored. */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}
