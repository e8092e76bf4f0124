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

/**
 * A 95% bootstrap interval of `q(a) - q(b)` (percentile method, seeded so a run can be repeated):
 * how far the difference of two quantiles could move from sampling alone.
 */
export function differenceInterval(a: number[], b: number[], q: (v: number[]) => number, resamples = 2000): [number, number] {
  let seed = 0x9e3779b9;
  const random = () => {
    // mulberry32: small, fast and good enough to resample with
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const resample = (v: number[]) => v.map(() => v[Math.floor(random() * v.length)]!);
  const differences = Array.from({ length: resamples }, () => q(resample(a)) - q(resample(b)));
  return [quantile(differences, 0.025), quantile(differences, 0.975)];
}
