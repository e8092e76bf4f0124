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

/** The run a link names (#/runs?run=<id>, from the overview): the page opens on every recent run, that one's calls shown. */
function linkedRun(): string | undefined {
  return new URLSearchParams(location.hash.split("?")[1] ?? "").get("run") ?? undefined;
}

export function RunsPage({ api, me }: PageProps) {
  const [openRunId] = useState(linkedRun);
  const [view, setView] = useState<View>(openRunId ? "runs" : "conversations");
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
      {view === "conversations" ? <Conversations api={api} showUser={showUser} /> : <RecentRuns api={api} me={me} openRunId={openRunId} />}
    </section>
  );
}

function RecentRuns({ api, me, openRunId }: PageProps & { openRunId: string | undefined }) {
  const read = useCallback<PageReader<Run>>(
    (page) => answer(api.GET("/api/v1/runs", { params: { query: page } })).then((a) => ({ items: a.runs, next_before: a.next_before })),
    [api],
  );
  const runs = usePaged(read);
  const showUser = me.principal === "operator" || me.user?.role === "admin";
  if (!runs.loading && !runs.error && runs.items.length === 0) return <p class="empty">No runs yet.</p>;
  return (
    <>
      {runs.items.length > 0 && (
        <RunTable
          runs={runs.items}
          caption="Recent runs, newest first"
          showUser={showUser}
          idPrefix="recent"
          {...(openRunId && { openRunId })}
        />
      )}
      <LoadMore list={runs} what="runs" />
    </>
  );
}
