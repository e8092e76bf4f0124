// The Usage page's tables: the accessible twin of each chart, every figure the
// chart draws and a few it does not (requests, cache writes), scrolling sideways
// on a narrow screen rather than squeezing.
import type { ComponentChildren } from "preact";
import { formatNumber as count, formatPercent as percent, formatUsd as usd } from "../format.ts";
import type { UsageFigures } from "../types.ts";
import { cacheHitRate } from "./rows.ts";

export interface UsageTableRow extends UsageFigures {
  key: string;
  /** The row header: a day, a model name, an email. */
  label: ComponentChildren;
}

export function UsageTable(props: { caption: string; first: string; rows: UsageTableRow[]; total?: UsageFigures }) {
  const { caption, first, rows, total } = props;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must be reachable by keyboard to scroll it
    <section class="table-wrap" aria-label={caption} tabIndex={0}>
      <table class="usage-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{first}</th>
            <th scope="col" class="num">
              Requests
            </th>
            <th scope="col" class="num">
              Input tokens
            </th>
            <th scope="col" class="num">
              Output tokens
            </th>
            <th scope="col" class="num">
              Cache read
            </th>
            <th scope="col" class="num">
              Cache write
            </th>
            <th scope="col" class="num">
              Cache-hit rate
            </th>
            <th scope="col" class="num">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              <Figures f={r} />
            </tr>
          ))}
        </tbody>
        {total && rows.length > 1 && (
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <Figures f={total} />
            </tr>
          </tfoot>
        )}
      </table>
    </section>
  );
}

function Figures({ f }: { f: UsageFigures }) {
  return (
    <>
      <td class="num">{count(f.requests)}</td>
      <td class="num">{count(f.input_tokens)}</td>
      <td class="num">{count(f.output_tokens)}</td>
      <td class="num">{count(f.cache_read_tokens)}</td>
      <td class="num">{count(f.cache_write_tokens)}</td>
      <td class="num">{percent(cacheHitRate(f))}</td>
      <td class="num">{usd(f.cost_usd)}</td>
    </>
  );
}
