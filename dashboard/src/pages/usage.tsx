// Usage (#/usage): tokens, cache-hit rate and cost per day, per model and, for
// admins and the operator, per user, over a range of UTC days
// (GET /api/v1/usage, docs/hosting.md#usage-api). Charts are drawn by uPlot,
// loaded only here; each has its numbers in a table (docs/dashboard.md#usage).
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { answer } from "../api.ts";
import { formatNumber as count, formatPercent as percent, formatUsd as usd } from "../format.ts";
import { compact, shortDay } from "../usage/axis.ts";
import type { PageProps, UsageAnswer, UsageRow } from "../types.ts";
import { Field } from "../ui/field.tsx";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { Chart, type ChartSeries } from "../usage/chart.tsx";
import { type DayRange, PRESETS, presetOf, presetRange, rangeProblems } from "../usage/range.ts";
import { byTokens, cacheHitRate, everyDay, totalOf } from "../usage/rows.ts";
import { UsageTable, type UsageTableRow } from "../usage/tables.tsx";
import "../usage/usage.css";

const COLORS = { input: "#2563eb", output: "#c2410c", cacheRead: "#047857", cost: "#7c3aed", rate: "#0e7490" };

interface Loaded {
  range: DayRange;
  days: UsageRow[];
  models: UsageRow[];
  users: UsageRow[] | undefined;
}

export function UsagePage({ api, me }: PageProps) {
  const seesUsers = me.principal === "operator" || me.user?.role === "admin";
  const [range, setRange] = useState<DayRange>(() => presetRange("month", Date.now()));
  const [draft, setDraft] = useState<DayRange>(range);
  const [loaded, setLoaded] = useState<Loaded>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);

  useEffect(() => {
    const call = ++latest.current;
    setLoading(true);
    setError(undefined);
    const get = (group_by: UsageAnswer["group_by"]) =>
      answer(api.GET("/api/v1/usage", { params: { query: { from: range.from, to: range.to, group_by } } })).then((a) => a.rows);
    Promise.all([get("day"), get("model"), seesUsers ? get("user") : Promise.resolve(undefined)]).then(
      ([days, models, users]) => {
        if (call !== latest.current) return;
        setLoaded({ range, days, models, users });
        setLoading(false);
      },
      (e: unknown) => {
        if (call !== latest.current) return;
        setError(errorText(e));
        setLoading(false);
      },
    );
  }, [api, range, seesUsers]);

  const problems = rangeProblems(draft);
  const apply = (next: DayRange) => {
    setDraft(next);
    if (Object.keys(rangeProblems(next)).length === 0) setRange(next);
  };
  const pressed = presetOf(range, Date.now());

  return (
    <section class="page usage">
      <h1>Usage</h1>
      <form
        class="range-form"
        onSubmit={(e) => {
          e.preventDefault();
          apply(draft);
        }}
        noValidate
      >
        <fieldset>
          <legend>Date range (UTC days, both included)</legend>
          <div class="range-fields">
            <DateField label="From" name="from" value={draft.from} error={problems.from} onValue={(from) => setDraft({ ...draft, from })} />
            <DateField label="To" name="to" value={draft.to} error={problems.to} onValue={(to) => setDraft({ ...draft, to })} />
            <button type="submit" class="primary" disabled={Object.keys(problems).length > 0}>
              Show
            </button>
          </div>
          <fieldset class="presets">
            <legend class="visually-hidden">Quick ranges</legend>
            {PRESETS.map((p) => (
              <button type="button" key={p.id} aria-pressed={pressed === p.id} onClick={() => apply(presetRange(p.id, Date.now()))}>
                {p.label}
              </button>
            ))}
          </fieldset>
        </fieldset>
      </form>

      <StatusNotice>{loading ? "Loading usage…" : ""}</StatusNotice>
      <ErrorNotice>{error && `Could not load usage: ${error}`}</ErrorNotice>
      {loaded && !error && <UsageReport loaded={loaded} />}
    </section>
  );
}

function DateField(props: { label: string; name: string; value: string; error: string | undefined; onValue: (v: string) => void }) {
  return (
    <Field label={props.label} name={props.name} error={props.error}>
      {(control) => <input type="date" required {...control} value={props.value} onInput={(e) => props.onValue(e.currentTarget.value)} />}
    </Field>
  );
}

function UsageReport({ loaded }: { loaded: Loaded }) {
  const { range, days, models, users } = loaded;
  const total = useMemo(() => totalOf(days), [days]);
  const daily = useMemo(() => everyDay(days, range), [days, range]);
  const dayLabels = useMemo(() => daily.map((d) => shortDay(d.day)), [daily]);
  const tokenSeries = useMemo<ChartSeries[]>(
    () => [
      { label: "Input", color: COLORS.input, values: daily.map((d) => d.input_tokens) },
      { label: "Output", color: COLORS.output, values: daily.map((d) => d.output_tokens) },
      { label: "Cache read", color: COLORS.cacheRead, values: daily.map((d) => d.cache_read_tokens) },
    ],
    [daily],
  );
  const rateSeries = useMemo<ChartSeries[]>(
    () => [{ label: "Cache-hit rate", color: COLORS.rate, values: daily.map((d) => cacheHitRate(d)) }],
    [daily],
  );
  const modelRows = useMemo(() => models.map((r) => ({ ...r, key: r.model ?? "", label: r.model ?? "" })), [models]);
  const userRows = useMemo(() => users?.map((r) => ({ ...r, key: r.user_id ?? "", label: userLabel(r) })), [users]);
  const costSeries = useMemo<ChartSeries[]>(
    () => [{ label: "Cost (USD)", color: COLORS.cost, values: daily.map((d) => d.cost_usd) }],
    [daily],
  );

  if (days.length === 0) {
    return (
      <p class="empty" role="status">
        No usage in this range. Runs appear here once they finish; try a longer range.
      </p>
    );
  }
  const rate = percent(cacheHitRate(total));
  return (
    <>
      <dl class="totals">
        <Total term="Requests" value={count(total.requests)} />
        <Total term="Input tokens" value={count(total.input_tokens)} />
        <Total term="Output tokens" value={count(total.output_tokens)} />
        <Total term="Cache-hit rate" value={rate} />
        <Total term="Cost" value={usd(total.cost_usd)} />
      </dl>

      <section aria-labelledby="usage-per-day">
        <h2 id="usage-per-day">Per day</h2>
        <div class="charts">
          <Chart caption="Tokens per day" labels={dayLabels} series={tokenSeries} kind="lines" format={compact} />
          <Chart
            caption="Cache-hit rate per day"
            labels={dayLabels}
            series={rateSeries}
            kind="lines"
            format={percent}
            yRange={RATE_RANGE}
          />
          <Chart caption="Cost per day" labels={dayLabels} series={costSeries} kind="bars" format={usd} />
        </div>
        <UsageTable
          caption="Usage per day"
          first="Day (UTC)"
          rows={daily.filter((d) => d.requests > 0).map((d) => ({ ...d, key: d.day, label: d.day }))}
          total={total}
        />
      </section>

      <Breakdown id="usage-per-model" title="Per model" first="Model" rows={modelRows} />
      {userRows && <Breakdown id="usage-per-user" title="Per user" first="User" rows={userRows} />}
    </>
  );
}

const RATE_RANGE: [number, number] = [0, 1];

function userLabel(r: UsageRow): string {
  if (r.user_id === "local") return "local (single-user token)";
  // null: a removed user (the API keeps their usage); absent: an API without emails.
  if (r.email === null) return `${r.user_id ?? "?"} (removed)`;
  return r.email ?? r.user_id ?? "?";
}

function Total({ term, value }: { term: string; value: string }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{value}</dd>
    </div>
  );
}

/** Per model or user, biggest first: tokens, cache-hit rate and cost as bars, and a table. */
function Breakdown(props: { id: string; title: string; first: string; rows: UsageTableRow[] }) {
  const rows = useMemo(() => byTokens(props.rows), [props.rows]);
  const labels = useMemo(() => rows.map((r) => String(r.label)), [rows]);
  const tokenSeries = useMemo<ChartSeries[]>(
    () => [
      { label: "Input", color: COLORS.input, values: rows.map((r) => r.input_tokens) },
      { label: "Output", color: COLORS.output, values: rows.map((r) => r.output_tokens) },
    ],
    [rows],
  );
  const rateSeries = useMemo<ChartSeries[]>(
    () => [{ label: "Cache-hit rate", color: COLORS.rate, values: rows.map((r) => cacheHitRate(r)) }],
    [rows],
  );
  const costSeries = useMemo<ChartSeries[]>(
    () => [{ label: "Cost (USD)", color: COLORS.cost, values: rows.map((r) => r.cost_usd) }],
    [rows],
  );
  const per = props.title.toLowerCase();
  return (
    <section aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <div class="charts">
        <Chart caption={`Tokens ${per}`} labels={labels} series={tokenSeries} kind="bars" format={compact} />
        <Chart caption={`Cache-hit rate ${per}`} labels={labels} series={rateSeries} kind="bars" format={percent} yRange={RATE_RANGE} />
        <Chart caption={`Cost ${per}`} labels={labels} series={costSeries} kind="bars" format={usd} />
      </div>
      <UsageTable caption={`Usage ${per}`} first={props.first} rows={rows} total={totalOf(rows)} />
    </section>
  );
}
