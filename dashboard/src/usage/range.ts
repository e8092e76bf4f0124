// The Usage page's date range: UTC days, both included, like GET /api/v1/usage
// (docs/hosting.md#usage-api). Presets are computed from "today" in UTC so the
// page and the ledger agree on what a day is.

export interface DayRange {
  from: string;
  to: string;
}

export type Preset = "7d" | "30d" | "month";

export const PRESETS: { id: Preset; label: string }[] = [
  { id: "7d", label: "Last 7 days" },
  { id: "30d", label: "Last 30 days" },
  { id: "month", label: "This month" },
];

/** The API refuses longer ranges (src/hosting/admin/usage-range.ts). */
const MAX_RANGE_DAYS = 366;

const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function presetRange(preset: Preset, nowMs: number): DayRange {
  const to = utcDay(nowMs);
  if (preset === "month") return { from: `${to.slice(0, 7)}-01`, to };
  const days = preset === "7d" ? 7 : 30;
  return { from: utcDay(nowMs - (days - 1) * DAY_MS), to };
}

/** Which preset a range equals, if any (so its button shows as pressed). */
export function presetOf(range: DayRange, nowMs: number): Preset | undefined {
  return PRESETS.find(({ id }) => {
    const p = presetRange(id, nowMs);
    return p.from === range.from && p.to === range.to;
  })?.id;
}

/** Every UTC day from `from` to `to`, both included (for charts: days without usage are zeros, not gaps). */
export function daysOf(range: DayRange): string[] {
  const days: string[] = [];
  const end = Date.parse(`${range.to}T00:00:00Z`);
  for (let ms = Date.parse(`${range.from}T00:00:00Z`); ms <= end && days.length <= MAX_RANGE_DAYS; ms += DAY_MS) days.push(utcDay(ms));
  return days;
}

/** What is wrong with a range, per field, before asking the API (which says the same, later). */
export function rangeProblems(range: DayRange): Partial<Record<keyof DayRange, string>> {
  const problems: Partial<Record<keyof DayRange, string>> = {};
  for (const key of ["from", "to"] as const) {
    const value = range[key];
    if (!DAY.test(value) || utcDay(Date.parse(`${value}T00:00:00Z`) || 0) !== value) problems[key] = "Enter a date (YYYY-MM-DD).";
  }
  if (problems.from || problems.to) return problems;
  const days = (Date.parse(range.to) - Date.parse(range.from)) / DAY_MS + 1;
  if (days < 1) problems.to = "The end date is before the start date.";
  else if (days > MAX_RANGE_DAYS) problems.to = `At most ${MAX_RANGE_DAYS} days at once (this range has ${days}).`;
  return problems;
}
