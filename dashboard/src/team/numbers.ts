// The Team page's number fields as the API takes them (docs/hosting.md#limits):
// blank means none (null), otherwise a whole number; digit groups may be
// written with commas, spaces or underscores ("50,000,000").

export type Parsed = { value: number | null } | { error: string };

/** A limit or budget: blank → null, else a whole number ≥ min. */
export function parseWhole(text: string, min: number): Parsed {
  const trimmed = text.trim().replace(/[,_\s]/g, "");
  if (trimmed === "") return { value: null };
  if (!/^\d+$/.test(trimmed)) return { error: "Enter a whole number, or leave it empty for none." };
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) return { error: "That number is too large." };
  if (value < min) return { error: `Enter at least ${min}, or leave it empty for none.` };
  return { value };
}

/** What goes in the field for a stored value (null: empty), grouped so that 40,000,000 reads at a glance. */
export function wholeText(value: number | null): string {
  return value === null ? "" : value.toLocaleString("en-US");
}

/** The budget meter's text: "1,200 of 50,000 tokens (2.4%)". */
export function budgetText(used: number, budget: number | null, format: (n: number) => string): string {
  if (budget === null) return `${format(used)} tokens used; no monthly budget set`;
  const share = budget === 0 ? (used > 0 ? 1 : 0) : used / budget;
  const pct = (share * 100).toFixed(share < 0.1 && share > 0 ? 1 : 0);
  return `${format(used)} of ${format(budget)} tokens (${pct}%)`;
}
