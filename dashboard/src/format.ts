// How the dashboard writes numbers, money and times: in the reader's locale,
// timestamps in their time zone with the zone's short name as the locale writes it
// (UTC, GMT+1, CET…),
// "—" for nothing.
const DASH = "—";

export function formatNumber(value: number | null | undefined, digits = 0): string {
  if (value === null || value === undefined) return DASH;
  return value.toLocaleString(undefined, { maximumFractionDigits: digits, minimumFractionDigits: 0 });
}

export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  return value.toLocaleString(undefined, { style: "currency", currency: "USD", maximumFractionDigits: value < 1 ? 4 : 2 });
}

export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  return value < 10_000 ? `${formatNumber(value)} ms` : `${formatNumber(value / 1000, 1)} s`;
}

/** "Mar 5, 2026, 11:30 PM UTC" (as the reader's locale writes it); `timeZone` defaults to the reader's. */
export function formatDateTime(iso: string | null | undefined, timeZone?: string): string {
  if (!iso) return DASH;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  // Not dateStyle/timeStyle: Intl refuses timeZoneName beside them.
  return date.toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
    ...(timeZone && { timeZone }),
  });
}

export function formatPercent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return DASH;
  return ratio.toLocaleString(undefined, { style: "percent", maximumFractionDigits: 1 });
}
