// Extra request headers as the editor's name/value rows and back (ui/headers-editor.tsx).

export interface HeaderRow {
  name: string;
  value: string;
}

export function rowsOf(headers: Record<string, string> | null | undefined): HeaderRow[] {
  return Object.entries(headers ?? {}).map(([name, value]) => ({ name, value }));
}

/** The rows as a record; rows without a name are left out. */
export function headersOf(rows: HeaderRow[]): Record<string, string> {
  return Object.fromEntries(rows.filter((r) => r.name.trim() !== "").map((r) => [r.name.trim(), r.value]));
}
