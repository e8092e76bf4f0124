// The days a usage query covers (docs/hosting.md#usage-api): `from` and `to` are
// ISO days or timestamps, read as their UTC day, both included; by default the
// current UTC month so far; at most MAX_RANGE_DAYS days.
import { AppError } from "../../core/errors.ts";
import { FieldsError, invalidField } from "./admin-errors.ts";

export const MAX_RANGE_DAYS = 366;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;

export function usageRange(query: { from?: string; to?: string }, nowMs: number): { from: string; to: string } {
  const today = dayOf(nowMs);
  const to = query.to === undefined ? undefined : parseDay("to", query.to);
  const from = query.from === undefined ? `${(to ?? today).slice(0, 7)}-01` : parseDay("from", query.from);
  // Without `to`: up to today, or an empty range at a `from` still to come.
  const end = to ?? [from, today].sort()[1]!;
  if (end < from) {
    throw new FieldsError([{ path: "query.to", message: "is before query.from" }], `query.to (${end}) is before query.from (${from})`);
  }
  const days = (Date.parse(end) - Date.parse(from)) / DAY_MS + 1;
  if (days > MAX_RANGE_DAYS) {
    throw new AppError("invalid_argument", `the range from ${from} to ${end} is ${days} days; at most ${MAX_RANGE_DAYS} are allowed`);
  }
  return { from, to: end };
}

/** The UTC day of an ISO day or timestamp; invalid_argument naming the parameter otherwise. */
function parseDay(name: "from" | "to", value: string): string {
  const ms = DAY.test(value) ? Date.parse(`${value}T00:00:00Z`) : TIMESTAMP.test(value) ? Date.parse(value) : Number.NaN;
  // Date.parse rolls 2026-02-30 over to March; the calendar date must name itself.
  const calendar = value.slice(0, 10);
  if (Number.isNaN(ms) || dayOf(Date.parse(`${calendar}T00:00:00Z`) || 0) !== calendar) {
    throw invalidField(`query.${name}`, "expected an ISO day (2026-05-01) or timestamp (2026-05-01T12:00:00Z)");
  }
  return dayOf(ms);
}

function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
