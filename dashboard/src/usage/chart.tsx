// A uPlot chart over categories (days, models, users) that fits its container.
// uPlot is loaded on first use (./uplot.ts by dynamic import). The chart is for
// seeing; the same numbers are in the table next to it, which is what screen
// readers read: the plot is role="img" with a label pointing there, and the
// value under the pointer is repeated as text for sighted mouse users.
import { useEffect, useRef, useState } from "preact/hooks";
import type uPlotType from "uplot";

export interface ChartSeries {
  label: string;
  /** null: nothing to draw there (a gap), e.g. a rate on a day without input. */
  values: (number | null)[];
  /** A CSS colour; the legend shows it next to the label. */
  color: string;
}

export interface ChartProps {
  /** The figure's caption, also the start of the plot's accessible name. */
  caption: string;
  /** One label per x position (e.g. "3 May", a model name). */
  labels: string[];
  series: ChartSeries[];
  /** Bars for categories (at most two series), lines for days. */
  kind: "bars" | "lines";
  /** Formats y values on the axis and in the readout. */
  format: (n: number) => string;
  /** Fixed y range, e.g. [0, 1] for a rate. */
  yRange?: [number, number];
  height?: number;
}

type UPlot = typeof uPlotType;

/** Axis labels stay short on a narrow chart; the table has them whole. */
function short(label: string): string {
  return label.length > 14 ? `${label.slice(0, 13)}…` : label;
}
let loading: Promise<UPlot> | undefined;

function loadUplot(): Promise<UPlot> {
  loading ??= import("./uplot.ts").then((m) => m.default);
  return loading;
}

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [readout, setReadout] = useState("");
  const [failed, setFailed] = useState(false);
  const { caption, labels, series, kind, format, yRange, height = 220 } = props;

  useEffect(() => {
    let plot: uPlotType | undefined;
    let observer: ResizeObserver | undefined;
    let cancelled = false;
    loadUplot().then(
      (uPlot) => {
        const el = box.current;
        if (cancelled || !el) return;
        const xs = labels.map((_, i) => i);
        // Canvas colours from the page's own (light or dark) theme.
        const css = getComputedStyle(el);
        const ink = css.color;
        const grid = { stroke: css.getPropertyValue("--border").trim() || "#d2d5db", width: 1 };
        // One series: centred bars; two: side by side, the first ending and the second starting at the category.
        const barsOf = (i: number) =>
          uPlot.paths.bars?.({ size: [series.length > 1 ? 0.35 : 0.6, 56], align: series.length > 1 ? (i === 0 ? -1 : 1) : 0 });
        const options: uPlotType.Options = {
          width: Math.max(200, el.clientWidth),
          height,
          legend: { show: false },
          cursor: { drag: { x: false, y: false }, points: { show: kind === "lines" } },
          scales: {
            x: { time: false, range: () => [-0.6, Math.max(0.6, labels.length - 0.4)] },
            y: yRange ? { range: () => yRange } : { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
          },
          axes: [
            {
              values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? short(labels[v] ?? "") : "")),
              incrs: [1, 2, 3, 5, 7, 10, 14, 20, 30, 50, 100],
              space: kind === "bars" ? 60 : 48,
              gap: 4,
              stroke: ink,
              grid: { show: false },
              ticks: { stroke: grid.stroke },
            },
            { values: (_u, splits) => splits.map(format), size: 60, stroke: ink, grid, ticks: { show: false } },
          ],
          series: [
            {},
            ...series.map((s, i) => ({
              label: s.label,
              stroke: s.color,
              width: kind === "lines" ? 2 : 0,
              fill: kind === "bars" ? s.color : undefined,
              points: { show: kind === "lines" && labels.length <= 45, size: 5, fill: s.color },
              ...(kind === "bars" && { paths: barsOf(i), points: { show: false } }),
            })),
          ],
          hooks: {
            setCursor: [
              (u) => {
                const idx = u.cursor.idx;
                if (idx === null || idx === undefined) return setReadout("");
                const parts = series.map((s) => {
                  const v = s.values[idx];
                  return `${s.label} ${v === null || v === undefined ? "—" : format(v)}`;
                });
                setReadout(`${labels[idx] ?? ""}: ${parts.join(", ")}`);
              },
            ],
          },
        };
        const data: (number | null)[][] = [xs, ...series.map((s) => s.values)];
        plot = new uPlot(options, data as uPlotType.AlignedData, el);
        // What the plot was given, summed per series, for the browser check (e2e/dashboard.ts) to
        // see that it drew the figures and not an empty frame.
        el.dataset.totals = JSON.stringify(
          Object.fromEntries(series.map((s, i) => [s.label, (data[i + 1] ?? []).reduce<number>((sum, v) => sum + (v ?? 0), 0)])),
        );
        observer = new ResizeObserver(() => plot?.setSize({ width: Math.max(200, el.clientWidth), height }));
        observer.observe(el);
      },
      () => setFailed(true),
    );
    return () => {
      cancelled = true;
      observer?.disconnect();
      plot?.destroy();
    };
  }, [labels, series, kind, format, yRange, height]);

  return (
    <figure class="chart">
      <figcaption>{caption}</figcaption>
      <ul class="chart-legend" aria-hidden="true">
        {series.map((s) => (
          <li key={s.label}>
            <span class="swatch" style={{ background: s.color }} />
            {s.label}
          </li>
        ))}
      </ul>
      <div ref={box} class="chart-plot" role="img" aria-label={`${caption}: a chart; the numbers are in the table below.`} />
      <p class="chart-readout" aria-hidden="true">
        {failed ? "The chart could not be loaded; the table below has the numbers." : readout || "\u00a0"}
      </p>
    </figure>
  );
}
