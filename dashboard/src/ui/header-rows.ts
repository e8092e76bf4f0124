// Extra request headers as the editor's name/value rows and back (ui/headers-editor.tsx).
// Stored header values are never shown (docs/hosting.md#header-values): a stored row has its
// name only, and is kept as it is unless a new value is typed or the row is removed.

export interface HeaderRow {
  name: string;
  value: string;
  /** A header already stored: its name is fixed, its value hidden; empty value: keep it. */
  stored?: boolean;
}

/** Rows for stored headers, by name. */
export function storedRows(names: readonly string[] | undefined): HeaderRow[] {
  return (names ?? []).map((name) => ({ name, value: "", stored: true }));
}

/** Rows to fill in again (a duplicate: stored values are not copied). */
export function emptyRows(names: readonly string[] | undefined): HeaderRow[] {
  return (names ?? []).map((name) => ({ name, value: "" }));
}

/** The rows as a record; rows without a name, and stored rows, are left out. */
export function headersOf(rows: HeaderRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => !r.stored && r.name.trim() !== "").map((r) => [r.name.trim(), r.value]));
}

/**
 * A PATCH's headers: a replaced or new header set, a removed stored one null, a stored one kept
 * left out; undefined when nothing changes.
 */
export function headersPatchOf(rows: HeaderRow[], storedNames: readonly string[]): Record<string, string | null> | undefined {
  const patch: Record<string, string | null> = {};
  for (const name of storedNames) if (!rows.some((r) => r.stored && r.name === name)) patch[name] = null;
  for (const row of rows) {
    if (row.stored ? row.value !== "" : row.name.trim() !== "") patch[row.name.trim()] = row.value;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}
