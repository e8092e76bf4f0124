// Chart labels of the Usage page: short, because a phone-wide axis has room for
// "1.2M" and "3 May", not "1,200,000" and "2026-05-03".

const COMPACT = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export function compact(n: number): string {
  return COMPACT.format(n);
}

/** "3 May" for the UTC day `2026-05-03`. */
export function shortDay(day: string): string {
  const [, month, date] = day.split("-");
  return `${Number(date)} ${MONTHS[Number(month) - 1] ?? month}`;
}
