// A table of runs; each row's "Details" button opens the run's provider calls
// (attempts, timings, token counts) in the row below it. Nothing here is text
// of a prompt or response: the API has none.
import { formatNumber as count, formatDateTime as dateTime, formatMs as duration } from "../format.ts";
import type { ProviderCall, Run } from "../types.ts";
import { type Column, DataTable, ExpandButton } from "../ui/table.tsx";
import { useToggleSet } from "../ui/toggle-set.ts";
import { rowKey, shortId, whose } from "./shapes.ts";

/** `openRunId`: a run whose provider calls show at once (the overview links to it, #/runs?run=<id>). */
export function RunTable(props: { runs: Run[]; caption: string; showUser: boolean; idPrefix: string; openRunId?: string }) {
  const { runs, caption, showUser, idPrefix, openRunId } = props;
  const [open, toggle] = useToggleSet(runs.filter((r) => r.id === openRunId).map(rowKey));
  const detailsId = (run: Run) => `${idPrefix}-${rowKey(run)}-calls`;
  const columns: Column<Run>[] = [
    { header: "Started", cell: (run) => <span title={run.started_at ?? undefined}>{dateTime(run.started_at)}</span> },
    { header: "Status", cell: (run) => <Status value={run.status} /> },
    { header: "Model", cell: (run) => run.model },
    ...(showUser ? [{ header: "User", cell: (run: Run) => whose(run) }] : []),
    { header: "Duration", numeric: true, cell: (run) => duration(run.duration_ms) },
    { header: "Input tokens", numeric: true, cell: (run) => count(run.input_tokens) },
    { header: "Output tokens", numeric: true, cell: (run) => count(run.output_tokens) },
    { header: "Cache read", numeric: true, cell: (run) => count(run.cache_read_tokens) },
    {
      header: "Provider calls",
      cell: (run) => {
        const isOpen = open.has(rowKey(run));
        return (
          <ExpandButton class="link" open={isOpen} controls={detailsId(run)} onToggle={() => toggle(rowKey(run))}>
            {isOpen ? "Hide" : "Details"} ({run.provider_calls.length})
            <span class="visually-hidden"> of the run started {dateTime(run.started_at)}</span>
          </ExpandButton>
        );
      },
    },
  ];
  return (
    <DataTable
      caption={caption}
      class="runs"
      columns={columns}
      rows={runs}
      rowKey={rowKey}
      detail={(run) => (open.has(rowKey(run)) ? { id: detailsId(run), content: <RunDetails run={run} /> } : undefined)}
    />
  );
}

function RunDetails({ run }: { run: Run }) {
  return (
    <>
      <ul class="run-ids">
        <li>
          Run <code title={run.id}>{shortId(run.id)}</code>
        </li>
        <li>
          Conversation <code title={run.conversation_id}>{shortId(run.conversation_id)}</code>
        </li>
        <li>Finished {dateTime(run.finished_at)}</li>
        <li>Reasoning tokens {count(run.reasoning_tokens)}</li>
        <li>Cache write tokens {count(run.cache_write_tokens)}</li>
      </ul>
      <ProviderCalls calls={run.provider_calls} />
    </>
  );
}

export function Status({ value }: { value: string | null }) {
  if (!value) return <span>—</span>;
  const tone = /^(completed|ok|success)$/.test(value) ? "ok" : /^(failed|error)$/.test(value) ? "bad" : "neutral";
  return <span class={`badge run-status-${tone}`}>{value}</span>;
}

/** Attempts are shown counted from 1 (the API's `attempt` starts at 0). */
const CALL_COLUMNS: Column<ProviderCall>[] = [
  { header: "Attempt", cell: (c) => c.attempt + 1 },
  { header: "Provider", cell: (c) => c.provider },
  { header: "Model", cell: (c) => c.model },
  // The credential of the attempt: which of a model's keys it used (docs/providers.md#keys-behind-one-model).
  { header: "Key", cell: (c) => (c.credential_id ? <code>{c.credential_id}</code> : "—") },
  { header: "Status", cell: (c) => <Status value={c.status} /> },
  { header: "HTTP", numeric: true, cell: (c) => c.http_status ?? "—" },
  { header: "Finish reason", cell: (c) => c.finish_reason ?? "—" },
  { header: "TTFB", numeric: true, cell: (c) => duration(c.ttfb_ms) },
  { header: "TTFT", numeric: true, cell: (c) => duration(c.ttft_ms) },
  { header: "Duration", numeric: true, cell: (c) => duration(c.duration_ms) },
  { header: "Input", numeric: true, cell: (c) => count(c.input_tokens) },
  { header: "Output", numeric: true, cell: (c) => count(c.output_tokens) },
  { header: "Cache read", numeric: true, cell: (c) => count(c.cache_read_tokens) },
  { header: "Cache write", numeric: true, cell: (c) => count(c.cache_write_tokens) },
  { header: "Reasoning", numeric: true, cell: (c) => count(c.reasoning_tokens) },
  // A call cancelled, stalled or cut reports no usage: its tokens are byok-edge's estimate (docs/hosting.md#limits).
  { header: "Counted", cell: (c) => (c.input_tokens === null ? "—" : c.usage_estimated ? "estimated" : "reported") },
];

function ProviderCalls({ calls }: { calls: ProviderCall[] }) {
  if (calls.length === 0) return <p>No provider call was made for this run.</p>;
  return <DataTable caption="Provider calls" class="calls" columns={CALL_COLUMNS} rows={calls} rowKey={(c) => c.id} />;
}
