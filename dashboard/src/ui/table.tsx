// Every data table of the dashboard: a caption, column headers (<th scope="col">),
// the first cell of each row as its header (<th scope="row">), numbers right-aligned,
// scrolling sideways in its own focusable region on a narrow screen rather than
// squeezing, and optionally a line instead when there are no rows, a row marked
// current, a detail row opened under a row, and a footer row
// (docs/dashboard.md#accessibility).
import type { ComponentChildren } from "preact";

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Right-aligned, for numbers. */
  numeric?: boolean;
  /** The class of the column's cells (not of its header), for their own CSS. */
  cellClass?: string;
}

/** An opened row's detail: one cell across every column, in a row of class "details" below it. */
interface Detail {
  /** The cell's id, for the aria-controls of the button that opens it. */
  id?: string;
  content: ComponentChildren;
}

interface DataTableProps<T> {
  caption: ComponentChildren;
  /** The scrolling region's name; by default the caption, when it is text. */
  label?: string;
  /** The table's class, for a page's CSS. */
  class?: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  /** Shown instead of the table when there are no rows; without it the table is shown with none. */
  empty?: ComponentChildren;
  /** The row marked aria-current, e.g. the team being managed. */
  current?: (row: T) => boolean;
  /** The detail of a row that is open; undefined for a closed one. */
  detail?: (row: T) => Detail | undefined;
  /** A last row in <tfoot>, drawn by the same columns (e.g. totals). */
  footer?: T;
}

export function DataTable<T>(props: DataTableProps<T>) {
  const { caption, label, columns, rows, rowKey, empty, current, detail, footer } = props;
  if (rows.length === 0 && empty !== undefined) return <p class="empty">{empty}</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must be reachable by keyboard to scroll it
    <section class="table-wrap" tabIndex={0} aria-label={label ?? (typeof caption === "string" ? caption : "table")}>
      <table class={props.class}>
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
          {rows.map((row) => {
            const key = rowKey(row);
            const opened = detail?.(row);
            return [
              <tr key={key} aria-current={current?.(row) ? "true" : undefined}>
                <Cells columns={columns} row={row} />
              </tr>,
              opened && (
                <tr key={`${key}-detail`} class="details">
                  <td colSpan={columns.length} id={opened.id}>
                    {opened.content}
                  </td>
                </tr>
              ),
            ];
          })}
        </tbody>
        {footer !== undefined && (
          <tfoot>
            <tr>
              <Cells columns={columns} row={footer} />
            </tr>
          </tfoot>
        )}
      </table>
    </section>
  );
}

function Cells<T>({ columns, row }: { columns: Column<T>[]; row: T }) {
  return (
    <>
      {columns.map((c, i) =>
        i === 0 ? (
          <th key={c.header} scope="row">
            {c.cell(row)}
          </th>
        ) : (
          <td key={c.header} class={[c.numeric && "num", c.cellClass].filter(Boolean).join(" ") || undefined}>
            {c.cell(row)}
          </td>
        ),
      )}
    </>
  );
}

/** The button that opens or closes a row's detail: aria-expanded, and aria-controls naming the detail while it is open. */
export function ExpandButton(props: {
  open: boolean;
  controls?: string;
  class?: string;
  onToggle: () => void;
  children: ComponentChildren;
}) {
  return (
    <button
      type="button"
      class={props.class}
      aria-expanded={props.open}
      aria-controls={props.open ? props.controls : undefined}
      onClick={props.onToggle}
    >
      {props.children}
    </button>
  );
}
