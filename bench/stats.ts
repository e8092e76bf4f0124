// Small helpers shared by the sections of `npm run bench`: quantiles, number
// formats and markdown tables (docs/benchmarks.md).

export function positiveInt(value: string | undefined, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
  return n;
}

/** Nearest-rank quantile; NaN for no values. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}
export const median = (v: number[]) => quantile(v, 0.5);
export const p95 = (v: number[]) => quantile(v, 0.95);
export const p99 = (v: number[]) => quantile(v, 0.99);

export const fmt = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(2)} ms` : "n/a");
export const ratio = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}×` : "n/a");
export const mib = (bytes: number) => (Number.isFinite(bytes) ? `${(bytes / 1024 ** 2).toFixed(1)} MiB` : "n/a");

/** A markdown table; the first column is left-aligned, the others right-aligned. */
export function table(head: string[], rows: string[][]): string {
  return [
    `| ${head.join(" | ")} |`,
    `|---|${head
      .slice(1)
      .map(() => "---:|")
      .join("")}`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

/** Runs `work` over `items` with at most `limit` at once; results in the order of the items. */
export async function pool<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
