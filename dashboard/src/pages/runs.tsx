// Runs (#/runs): recent conversations with their runs, or every recent run, each
// with its provider calls (GET /api/v1/conversations, /api/v1/runs). Members and
// `local` see their own, admins their team's, the operator everyone's.
import { useCallback, useState } from "preact/hooks";
import { answer } from "../api.ts";
import { Conversations } from "../runs/conversations.tsx";
import { LoadMore } from "../runs/load-more.tsx";
import { type PageReader, usePaged } from "../runs/paged.ts";
import { RunTable } from "../runs/run-table.tsx";
import type { PageProps, Run } from "../types.ts";
import "../runs/runs.css";

type View = "conversations" | "runs";

export function RunsPage({ api, me }: PageProps) {
  const [view, setView] = useState<View>("conversations");
  const showUser = me.principal === "operator" || me.user?.role === "admin";
  return (
    <section class="page runs-page">
      <h1>Runs</h1>
      <p class="lead">
        Status, timings and token counts of each run and of each call it made to a provider. Prompts and answers are not stored, so they are
        not shown.
      </p>
      <fieldset class="view-switch">
        <legend class="visually-hidden">Show</legend>
        <button type="button" aria-pressed={view === "conversations"} onClick={() => setView("conversations")}>
          By conversation
        </button>
        <button type="button" aria-pressed={view === "runs"} onClick={() => setView("runs")}>
          All recent runs
        </button>
      </fieldset>
      {view === "conversations" ? <Conversations api={api} showUser={showUser} /> : <RecentRuns api={api} me={me} />}
    </section>
  );
}

function RecentRuns({ api, me }: PageProps) {
  const read = useCallback<PageReader<Run>>(
    (page) => answer(api.GET("/api/v1/runs", { params: { query: page } })).then((a) => ({ items: a.runs, next_before: a.next_before })),
    [api],
  );
  const runs = usePaged(read);
  const showUser = me.principal === "operator" || me.user?.role === "admin";
  if (!runs.loading && !runs.error && runs.items.length === 0) return <p class="empty">No runs yet.</p>;
  return (
    <>
      {runs.items.length > 0 && <RunTable runs={runs.items} caption="Recent runs, newest first" showUser={showUser} idPrefix="recent" />}
      <LoadMore list={runs} what="runs" />
    </>
  );
}
