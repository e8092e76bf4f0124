// The Audit page's exports (docs/dashboard.md#audit): the entries of the current filter as
// JSON Lines (one entry, as the API gives it, per line) or CSV (RFC 4180: a header row, every
// field quoted, `details` as its JSON). Pure, so it is unit-tested in Node.
import type { AuditEntry } from "../types.ts";

export function toJsonLines(entries: readonly AuditEntry[]): string {
  return entries.map((e) => `${JSON.stringify(e)}\n`).join("");
}

const CSV_COLUMNS: [string, (e: AuditEntry) => unknown][] = [
  ["id", (e) => e.id],
  ["at", (e) => e.at],
  ["actor_kind", (e) => e.actor.kind],
  ["actor_id", (e) => e.actor.id],
  ["actor_email", (e) => e.actor.email],
  ["action", (e) => e.action],
  ["target_kind", (e) => e.target.kind],
  ["target_id", (e) => e.target.id],
  ["target_name", (e) => e.target.name],
  ["team_id", (e) => e.team_id],
  ["outcome", (e) => e.outcome],
  ["ip", (e) => e.ip],
  ["user_agent", (e) => e.user_agent],
  ["details", (e) => JSON.stringify(e.details)],
];

export function toCsv(entries: readonly AuditEntry[]): string {
  const rows = [CSV_COLUMNS.map(([name]) => name), ...entries.map((e) => CSV_COLUMNS.map(([, value]) => value(e)))];
  return rows.map((row) => `${row.map(csvField).join(",")}\r\n`).join("");
}

/** Quoted, quotes doubled; a field a spreadsheet would run as a formula (=, +, -, @) gets a leading '. */
function csvField(value: unknown): string {
  const text = value === null || value === undefined ? "" : String(value);
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return `"${safe.replaceAll('"', '""')}"`;
}
