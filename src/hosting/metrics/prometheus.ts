// GET /metrics in the Prometheus text exposition format (docs/telemetry.md#metrics), from the D1
// figures (src/hosting/store/metrics-rows.ts). Written here rather than with prom-client: its
// registry keeps the figures in process memory, which a Worker's isolates neither share nor keep,
// and these figures are D1's, read fresh per scrape; what is left is the format, a few lines.
import { type CallFigures, type Labels, type MetricsFigures, RUN_BUCKETS_S, TTFT_BUCKETS_S } from "../store/metrics-rows.ts";

type LabelSet = Record<string, string>;

class Exposition {
  readonly #lines: string[] = [];

  family(name: string, type: "counter" | "gauge" | "histogram", help: string): void {
    this.#lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  }

  sample(name: string, labels: LabelSet, value: number): void {
    const set = Object.entries(labels)
      .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
      .join(",");
    this.#lines.push(`${name}${set ? `{${set}}` : ""} ${Number.isFinite(value) ? value : 0}`);
  }

  histogram(name: string, labels: LabelSet, bounds: number[], buckets: number[], count: number, sum: number): void {
    for (const [i, le] of bounds.entries()) this.sample(`${name}_bucket`, { ...labels, le: String(le) }, buckets[i] ?? 0);
    this.sample(`${name}_bucket`, { ...labels, le: "+Inf" }, count);
    this.sample(`${name}_sum`, labels, sum);
    this.sample(`${name}_count`, labels, count);
  }

  text(): string {
    return `${this.#lines.join("\n")}\n`;
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

const labelsOf = ({ team, model, provider }: Labels): LabelSet => ({ team, model, provider });

const ERROR_KINDS: [string, (c: CallFigures) => number][] = [
  ["rate_limit", (c) => c.rateLimited],
  ["authorization", (c) => c.refused],
  ["provider_error", (c) => c.providerErrors],
  ["request", (c) => c.badRequests],
  ["no_answer", (c) => c.noAnswer],
];

export function prometheusText(figures: MetricsFigures): string {
  const out = new Exposition();
  out.family("byok_requests_total", "counter", "Runs (Cursor turns and subagents) that ended, by how they ended.");
  for (const r of figures.runs) out.sample("byok_requests_total", { ...labelsOf(r), status: r.status }, r.runs);

  out.family("byok_provider_calls_total", "counter", "Provider calls, each attempt and fallback its own.");
  for (const c of figures.calls) out.sample("byok_provider_calls_total", labelsOf(c), c.calls);

  out.family("byok_tokens_total", "counter", "Tokens the providers counted, by kind.");
  for (const c of figures.calls) {
    for (const [type, value] of [
      ["input", c.inputTokens],
      ["output", c.outputTokens],
      ["cache_read", c.cacheReadTokens],
      ["cache_write", c.cacheWriteTokens],
      ["reasoning", c.reasoningTokens],
    ] as const) {
      out.sample("byok_tokens_total", { ...labelsOf(c), type }, value);
    }
  }

  // The ledger has no provider: a model's is that of its calls.
  const providerOf = new Map(figures.calls.map((c) => [`${c.team}\u0000${c.model}`, c.provider]));
  out.family("byok_cost_usd_total", "counter", "Cost in USD at the models' prices (0 for a model without prices).");
  for (const c of figures.costs) {
    const provider = providerOf.get(`${c.team}\u0000${c.model}`) ?? "none";
    out.sample("byok_cost_usd_total", { team: c.team, model: c.model, provider }, c.costUsd);
  }

  out.family("byok_errors_total", "counter", "Failed provider calls, by kind.");
  for (const c of figures.calls) for (const [kind, of] of ERROR_KINDS) out.sample("byok_errors_total", { ...labelsOf(c), kind }, of(c));

  out.family("byok_active_runs", "gauge", "Runs in progress.");
  for (const a of figures.active) out.sample("byok_active_runs", labelsOf(a), a.runs);

  out.family("byok_time_to_first_token_seconds", "histogram", "From a provider call's start to its first text.");
  for (const c of figures.calls) {
    out.histogram("byok_time_to_first_token_seconds", labelsOf(c), TTFT_BUCKETS_S, c.ttftBuckets, c.ttftCount, c.ttftSumS);
  }

  // Per team, model and provider, all statuses together.
  const durations = new Map<string, { labels: Labels; buckets: number[]; count: number; sum: number }>();
  for (const r of figures.runs) {
    const key = `${r.team}\u0000${r.model}\u0000${r.provider}`;
    const into = durations.get(key) ?? { labels: r, buckets: RUN_BUCKETS_S.map(() => 0), count: 0, sum: 0 };
    r.durationBuckets.forEach((b, i) => {
      into.buckets[i]! += b;
    });
    into.count += r.durationCount;
    into.sum += r.durationSumS;
    durations.set(key, into);
  }
  out.family("byok_run_duration_seconds", "histogram", "From a run's start to its end.");
  for (const d of durations.values())
    out.histogram("byok_run_duration_seconds", labelsOf(d.labels), RUN_BUCKETS_S, d.buckets, d.count, d.sum);
  return out.text();
}
