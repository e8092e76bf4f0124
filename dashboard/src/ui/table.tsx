// A data table: a caption, column headers (<th scope="col">), the first cell of each
// row as its header (<th scope="row">), scrolling sideways on a narrow screen
// rather than squeezing, and a line saying so when there are no rows.
import type { ComponentChildren } from "preact";

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Right-aligned, for numbers. */
  numeric?: boolean;
}

interface DataTableProps<T> {
  caption: ComponentChildren;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  empty: ComponentChildren;
}

export function DataTable<T>({ caption, columns, rows, rowKey, empty }: DataTableProps<T>) {
  if (rows.length === 0) return <p class="empty">{empty}</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must be reachable by keyboard to scroll it
    <section class="table-wrap" tabIndex={0} aria-label={typeof caption === "string" ? caption : "table"}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" class={c.numeric ? "num" : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c, i) =>
                i === 0 ? (
                  <th key={c.header} scope="row">
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={c.header} class={c.numeric ? "num" : undefined}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
