// A table of runs; each row's "Details" button opens the run's provider calls
// (attempts, timings, token counts) in the row below it. Nothing here is text
// of a prompt or response: the API has none.
import { formatNumber as count, formatDateTime as dateTime, formatMs as duration } from "../format.ts";
import type { ProviderCall, Run } from "../types.ts";
import { useToggleSet } from "../ui/toggle-set.ts";
import { rowKey, shortId, whose } from "./shapes.ts";

export function RunTable(props: { runs: Run[]; caption: string; showUser: boolean; idPrefix: string }) {
  const { runs, caption, showUser, idPrefix } = props;
  const [open, toggle] = useToggleSet();
  const columns = showUser ? 9 : 8;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must be reachable by keyboard to scroll it
    <section class="table-wrap" aria-label={caption} tabIndex={0}>
      <table class="runs">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Status</th>
            <th scope="col">Model</th>
            {showUser && <th scope="col">User</th>}
            <th scope="col" class="num">
              Duration
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
            <th scope="col">Provider calls</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => {
            const key = rowKey(run);
            const detailsId = `${idPrefix}-${key}-calls`;
            const isOpen = open.has(key);
            return [
              <tr key={key}>
                <th scope="row">
                  <span title={run.started_at ?? undefined}>{dateTime(run.started_at)}</span>
                </th>
                <td>
                  <Status value={run.status} />
                </td>
                <td>{run.model}</td>
                {showUser && <td>{whose(run)}</td>}
                <td class="num">{duration(run.duration_ms)}</td>
                <td class="num">{count(run.input_tokens)}</td>
                <td class="num">{count(run.output_tokens)}</td>
                <td class="num">{count(run.cache_read_tokens)}</td>
                <td>
                  <button
                    type="button"
                    class="link"
                    aria-expanded={isOpen}
                    aria-controls={isOpen ? detailsId : undefined}
                    onClick={() => toggle(key)}
                  >
                    {isOpen ? "Hide" : "Details"} ({run.provider_calls.length})
                    <span class="visually-hidden"> of the run started {dateTime(run.started_at)}</span>
                  </button>
                </td>
              </tr>,
              isOpen && (
                <tr key={`${key}-calls`} class="details">
                  <td colSpan={columns} id={detailsId}>
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
                  </td>
                </tr>
              ),
            ];
          })}
        </tbody>
      </table>
    </section>
  );
}

export function Status({ value }: { value: string | null }) {
  if (!value) return <span>—</span>;
  const tone = /^(completed|ok|success)$/.test(value) ? "ok" : /^(failed|error)$/.test(value) ? "bad" : "neutral";
  return <span class={`badge run-status-${tone}`}>{value}</span>;
}

/** Attempts are shown counted from 1 (the API's `attempt` starts at 0). */
function ProviderCalls({ calls }: { calls: ProviderCall[] }) {
  if (calls.length === 0) return <p>No provider call was made for this run.</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must be reachable by keyboard to scroll it
    <section class="table-wrap" aria-label="Provider calls" tabIndex={0}>
      <table class="calls">
        <caption>Provider calls</caption>
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Provider</th>
            <th scope="col">Model</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              HTTP
            </th>
            <th scope="col">Finish reason</th>
            <th scope="col" class="num">
              TTFB
            </th>
            <th scope="col" class="num">
              TTFT
            </th>
            <th scope="col" class="num">
              Duration
            </th>
            <th scope="col" class="num">
              Input
            </th>
            <th scope="col" class="num">
              Output
            </th>
            <th scope="col" class="num">
              Cache read
            </th>
            <th scope="col" class="num">
              Cache write
            </th>
            <th scope="col" class="num">
              Reasoning
            </th>
          </tr>
        </thead>
        <tbody>
          {calls.map((c) => (
            <tr key={c.id}>
              <th scope="row">{c.attempt + 1}</th>
              <td>{c.provider}</td>
              <td>{c.model}</td>
              <td>
                <Status value={c.status} />
              </td>
              <td class="num">{c.http_status ?? "—"}</td>
              <td>{c.finish_reason ?? "—"}</td>
              <td class="num">{duration(c.ttfb_ms)}</td>
              <td class="num">{duration(c.ttft_ms)}</td>
              <td class="num">{duration(c.duration_ms)}</td>
              <td class="num">{count(c.input_tokens)}</td>
              <td class="num">{count(c.output_tokens)}</td>
              <td class="num">{count(c.cache_read_tokens)}</td>
              <td class="num">{count(c.cache_write_tokens)}</td>
              <td class="num">{count(c.reasoning_tokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
