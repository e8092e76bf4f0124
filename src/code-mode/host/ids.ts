// Ids and names in requests, checked as Codex's host checks them
// (docs/code-mode.md#errors): every id is non-empty and at most 256 bytes;
// session, tool invocation and notification ids must also be UUIDs, in any of the
// forms Rust's uuid crate reads, and are compared in their canonical form.
import { AppError } from "../../core/errors.ts";

const ID_MAX_BYTES = 256;

type IdLabel = "session" | "tool invocation" | "notification" | "execution" | "wait" | "tool call" | "cell";
type NameLabel = "tool name" | "tool namespace" | "tool definition name";

const encoder = new TextEncoder();

/** A request the host refuses as Codex does: invalid_argument with Codex's text. */
export function invalid(message: string): AppError {
  return new AppError("invalid_argument", message);
}

/** A non-empty id of at most 256 bytes, as given. */
export function requireId(label: IdLabel, value: string): string {
  if (value === "") throw invalid(`code-mode ${label} ID must not be empty`);
  if (encoder.encode(value).byteLength > ID_MAX_BYTES) throw invalid(`code-mode ${label} ID exceeds ${ID_MAX_BYTES} bytes`);
  return value;
}

/** A UUID id, in its canonical form (lowercase, hyphenated). */
export function requireUuid(label: IdLabel, value: string): string {
  const uuid = canonicalUuid(requireId(label, value));
  if (uuid === undefined) throw invalid(`code-mode ${label} ID must be a UUID`);
  return uuid;
}

/** A tool name, namespace or definition name: a namespace may be empty (the default namespace). */
export function requireName(label: NameLabel, value: string): string {
  if (value === "" && label !== "tool namespace") throw invalid(`code-mode ${label} must not be empty`);
  if (encoder.encode(value).byteLength > ID_MAX_BYTES) throw invalid(`code-mode ${label} exceeds ${ID_MAX_BYTES} bytes`);
  return value;
}

const HEX32 = /^[0-9a-fA-F]{32}$/;
const HYPHENATED = /^([0-9a-fA-F]{8})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{4})-([0-9a-fA-F]{12})$/;

/** Simple, hyphenated, braced or URN form → "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"; anything else → undefined. */
function canonicalUuid(value: string): string | undefined {
  let text = value;
  if (text.length === 38 && text.startsWith("{") && text.endsWith("}")) text = text.slice(1, -1);
  else if (text.length === 45 && text.startsWith("urn:uuid:")) text = text.slice(9);
  let hex: string;
  if (text.length === 32 && HEX32.test(text)) hex = text;
  else {
    const parts = text.length === 36 ? HYPHENATED.exec(text) : null;
    if (!parts) return undefined;
    hex = parts.slice(1).join("");
  }
  hex = hex.toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
