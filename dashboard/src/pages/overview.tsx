// Overview (#/overview), the first page after sign-in (docs/dashboard.md#overview): today's runs
// and error rate, time to first token per model over the chosen range, today's slowest and
// failing provider calls linked into Runs, and for admins and the operator the users who spent
// most (GET /api/v1/overview).
import { useEffect, useState } from "preact/hooks";
import { answer } from "../api.ts";
import { formatDateTime, formatMs, formatNumber, formatPercent, formatUsd } from "../format.ts";
import type { Overview, PageProps } from "../types.ts";
import { SelectField } from "../ui/field.tsx";
import { ErrorNotice, errorText } from "../ui/notice.tsx";
import { type Column, DataTable } from "../ui/table.tsx";

type Call = Overview["slowest_calls"][number];
const RANGES = [
  { value: "1", label: "Today" },
  { value: "7", label: "Last 7 days" },
  { value: "30", label: "Last 30 days" },
];
const DAY_MS = 86_400_000;

const CALLS: Column<Call>[] = [
  { header: "Started", cell: (c) => formatDateTime(c.started_at) },
  { header: "Model", cell: (c) => c.model },
  { header: "Status", cell: (c) => c.status },
  { header: "HTTP", numeric: true, cell: (c) => c.http_status ?? "—" },
  { header: "First token", numeric: true, cell: (c) => formatMs(c.ttft_ms) },
  { header: "Duration", numeric: true, cell: (c) => formatMs(c.duration_ms) },
  { header: "Run", cell: (c) => <a href={`#/runs?run=${encodeURIComponent(c.run_id)}`}>Open in Runs</a> },
];

export function OverviewPage({ api }: PageProps) {
  const [days, setDays] = useState("7");
  const [overview, setOverview] = useState<Overview>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    setError(undefined);
    const from = new Date(Date.now() - (Number(days) - 1) * DAY_MS).toISOString().slice(0, 10);
    answer(api.GET("/api/v1/overview", { params: { query: { from } } })).then(
      (o) => live && setOverview(o),
      (err) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [api, days]);
  return (
    <section class="page overview-page">
      <h1>Overview</h1>
      <ErrorNotice>{error && `Could not load the overview: ${error}`}</ErrorNotice>
      {overview && (
        <>
          <dl class="figures">
            <div>
              <dt>Runs today</dt>
              <dd>{formatNumber(overview.today.runs)}</dd>
            </div>
            <div>
              <dt>Failed today</dt>
              <dd>
                {formatNumber(overview.today.failed)} ({formatPercent(overview.today.error_rate)})
              </dd>
            </div>
          </dl>
          <SelectField label="Range" name="range" value={days} onValue={setDays} options={RANGES} />
          <DataTable
            caption="Time to first token per model"
            columns={[
              { header: "Model", cell: (t) => t.model },
              { header: "Calls", numeric: true, cell: (t) => formatNumber(t.calls) },
              { header: "p50", numeric: true, cell: (t) => formatMs(t.p50_ms) },
              { header: "p95", numeric: true, cell: (t) => formatMs(t.p95_ms) },
            ]}
            rows={overview.ttft_by_model}
            rowKey={(t) => t.model}
            empty="No provider call answered in this range."
          />
          <DataTable
            caption="Today's slowest calls"
            columns={CALLS}
            rows={overview.slowest_calls}
            rowKey={(c) => c.id}
            empty="No calls today."
          />
          <DataTable
            caption="Today's failing calls"
            columns={CALLS}
            rows={overview.failing_calls}
            rowKey={(c) => c.id}
            empty="No call failed today."
          />
          {overview.top_users && (
            <DataTable
              caption="Top users by cost"
              columns={[
                { header: "User", cell: (u) => u.email ?? u.user_id },
                { header: "Cost", numeric: true, cell: (u) => formatUsd(u.cost_usd) },
                { header: "Runs", numeric: true, cell: (u) => formatNumber(u.requests) },
              ]}
              rows={overview.top_users}
              rowKey={(u) => u.user_id}
              empty="Nobody ran anything in this range."
            />
          )}
        </>
      )}
    </section>
  );
}
