// Values too large for one row of a Durable Object's SQLite (2 MB a row on
// Cloudflare), kept in `value_parts` as numbered parts of at most PART_BYTES,
// written in the caller's transaction beside the row that owns them and read
// back in order (docs/architecture.md#large-values). A small value stays inline
// in its own row: callers store it there and keep only a part count here.
import { and, asc, eq, gte } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import { concatBytes } from "../../core/bytes.ts";
import { valueParts } from "./schema.ts";

type Db = DrizzleSqliteDODatabase<Record<string, never>>;
type Tx = Pick<Db, "select" | "insert" | "delete">;

/** Bytes per part: a quarter of the row limit, leaving room for the key and SQLite's own overhead. */
const PART_BYTES = 512 * 1024;

/** The parts of a value: its UTF-8 (or its bytes) cut every `PART_BYTES`. */
function splitParts(value: string | Uint8Array): Uint8Array[] {
  const bytes = typeof value === "string" ? new TextEncoder().encode(value) : value;
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += PART_BYTES) parts.push(bytes.subarray(at, at + PART_BYTES));
  return parts;
}

/** Whether a string may stay inline: at most 3 UTF-8 bytes a UTF-16 unit, so this never counts a byte. */
function fitsInline(text: string): boolean {
  return text.length * 3 <= PART_BYTES;
}

/** A string for a row: inline when small, else "" with its parts. */
export function textForRow(text: string): { inline: string; parts: Uint8Array[] } {
  if (fitsInline(text)) return { inline: text, parts: [] };
  const parts = splitParts(text);
  return parts.length <= 1 ? { inline: text, parts: [] } : { inline: "", parts };
}

/** Bytes for a row: inline when small, else empty with their parts. */
export function bytesForRow(bytes: Uint8Array): { inline: Uint8Array; parts: Uint8Array[] } {
  return bytes.byteLength <= PART_BYTES ? { inline: bytes, parts: [] } : { inline: new Uint8Array(0), parts: splitParts(bytes) };
}

/** An owner's name in `value_parts`: the owning row's kind and key, unambiguous whatever the key holds. */
export function partsOwner(kind: string, ...key: (string | number)[]): string {
  return JSON.stringify([kind, ...key]);
}

/** Replaces the owner's parts with `parts` (none: deletes them); returns how many there are now. */
export function writeParts(tx: Tx, owner: string, parts: Uint8Array[]): number {
  // Parts beyond the new count go; the rest are overwritten in place.
  tx.delete(valueParts)
    .where(and(eq(valueParts.owner, owner), gte(valueParts.part, parts.length)))
    .run();
  for (const [part, data] of parts.entries()) {
    tx.insert(valueParts)
      .values({ owner, part, data })
      .onConflictDoUpdate({ target: [valueParts.owner, valueParts.part], set: { data } })
      .run();
  }
  return parts.length;
}

/** The owner's parts joined, in order; throws if one of the `count` parts is missing. */
export function readBytes(db: Pick<Db, "select">, owner: string, count: number): Uint8Array {
  const rows = db.select({ data: valueParts.data }).from(valueParts).where(eq(valueParts.owner, owner)).orderBy(asc(valueParts.part)).all();
  if (rows.length !== count) throw new Error(`stored value is missing parts (${rows.length} of ${count})`);
  return concatBytes(rows.map((row) => row.data));
}

/** The owner's parts as the text they were cut from. */
export function readText(db: Pick<Db, "select">, owner: string, count: number): string {
  return new TextDecoder().decode(readBytes(db, owner, count));
}
