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
