// How the Runs page shows a run or conversation (their API shapes are in ../types.ts):
// whose it is and a short id.

/** Who a run or conversation belongs to, as a person reads it. */
export function whose(row: { user_id: string; email: string | null }): string {
  if (row.user_id === "local") return "local (single-user token)";
  return row.email ?? `${row.user_id} (removed)`;
}

/** Ids are UUIDs; the first block tells them apart on one screen. */
export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/**
 * Conversation and run ids are per principal (two users can each have a conversation of the same
 * id), so a row is told apart by its user and its id together. The result is a React key, the member
 * of a table's open set and the stem of an HTML id: every character but [A-Za-z0-9-] is written as
 * `_` and six hex digits of its code point, and the two are joined by `__` (which an escape never
 * makes), so it has no whitespace and two rows never share one.
 */
export function rowKey(row: { user_id: string; id: string }): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9-]/gu, (c) => `_${(c.codePointAt(0) ?? 0).toString(16).padStart(6, "0")}`);
  return `${safe(row.user_id)}__${safe(row.id)}`;
}
