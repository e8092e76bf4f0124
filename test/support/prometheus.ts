// GET /metrics read as Prometheus would: the whole text parsed by a real text-format parser
// (parse-prometheus-text-format, prom2json's shape; it throws on a line Prometheus would refuse),
// with lookups by family and labels. That parser folds a histogram's labelled series into one
// and drops their counts, so a histogram's `_bucket` and `_count` samples are read from the
// text's lines instead.
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { OPERATOR_TOKEN } from "./admin-client.ts";
import { exports } from "cloudflare:workers";
import { BASE } from "./cursor-client.ts";

interface Sample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
interface Family {
  name: string;
  type: string;
  metrics: Sample[];
}

export interface Scrape {
  /** The value of the sample of `family` whose labels include `labels` (0 when there is none). */
  value(family: string, labels: Record<string, string>): number;
  /** A histogram's count and cumulative buckets for those labels. */
  histogram(family: string, labels: Record<string, string>): { count: number; buckets: Record<string, number> } | undefined;
  families: Family[];
}

export async function scrape(token: string = OPERATOR_TOKEN): Promise<Scrape> {
  const res = await exports.default.fetch(`${BASE}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET /metrics → ${res.status}: ${await res.text()}`);
  const text = await res.text();
  const families = (parsePrometheusTextFormat as (text: string) => Family[])(text);
  const matching = (family: string, labels: Record<string, string>) =>
    (families.find((f) => f.name === family)?.metrics ?? []).filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return {
    families,
    value: (family, labels) => matching(family, labels).reduce((sum, m) => sum + Number(m.value ?? 0), 0),
    histogram: (family, labels) => {
      const series = text.split("\n").flatMap((line) => {
        const m = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
        if (!m || !m[1]!.startsWith(family)) return [];
        const set = Object.fromEntries([...m[2]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
        if (!Object.entries(labels).every(([k, v]) => set[k] === v)) return [];
        return [{ name: m[1]!, le: set.le, value: Number(m[3]) }];
      });
      const count = series.find((s) => s.name === `${family}_count`);
      if (!count) return undefined;
      const buckets = Object.fromEntries(series.filter((s) => s.name === `${family}_bucket`).map((s) => [s.le!, s.value]));
      return { count: count.value, buckets };
    },
  };
}
