// The Usage page's tables: the accessible twin of each chart, every figure the
// chart draws and a few it does not (requests, cache writes), with the range's
// total in the footer (ui/table.tsx).
import type { ComponentChildren } from "preact";
import { formatMs, formatNumber as count, formatPercent as percent, formatUsd as usd } from "../format.ts";
import type { UsageFigures } from "../types.ts";
import { type Column, DataTable } from "../ui/table.tsx";
import { cacheHitRate } from "./rows.ts";

export interface UsageTableRow extends UsageFigures {
  key: string;
  /** The row header: a day, a model name, an email. */
  label: ComponentChildren;
}

const FIGURES: Column<UsageTableRow>[] = [
  { header: "Requests", numeric: true, cell: (f) => count(f.requests) },
  { header: "Input tokens", numeric: true, cell: (f) => count(f.input_tokens) },
  { header: "Output tokens", numeric: true, cell: (f) => count(f.output_tokens) },
  { header: "Cache read", numeric: true, cell: (f) => count(f.cache_read_tokens) },
  { header: "Cache write", numeric: true, cell: (f) => count(f.cache_write_tokens) },
  { header: "Cache-hit rate", numeric: true, cell: (f) => percent(cacheHitRate(f)) },
  { header: "Cost", numeric: true, cell: (f) => usd(f.cost_usd) },
  { header: "Code-mode cells", numeric: true, cell: (f) => count(f.cells) },
  { header: "Cell time", numeric: true, cell: (f) => formatMs(f.cell_wall_ms) },
];

export function UsageTable(props: { caption: string; first: string; rows: UsageTableRow[]; total?: UsageFigures }) {
  const { caption, first, rows, total } = props;
  return (
    <DataTable
      caption={caption}
      class="usage-table"
      columns={[{ header: first, cell: (r) => r.label }, ...FIGURES]}
      rows={rows}
      rowKey={(r) => r.key}
      footer={total && rows.length > 1 ? { ...total, key: "total", label: "Total" } : undefined}
    />
  );
}
