// The Audit page (#/audit, docs/dashboard.md#audit): the audit log newest first
// (GET /api/v1/audit), filtered by actor, action and time, a page at a time, and
// exported whole (every page of the current filter) as JSON Lines or CSV. The operator
// sees every entry, admins their team's, members what they did or what is about them.
import { useCallback, useState } from "preact/hooks";
import { answer } from "../api.ts";
import { toCsv, toJsonLines } from "../audit/export.ts";
import { formatDateTime } from "../format.ts";
import { LoadMore } from "../runs/load-more.tsx";
import { type PageReader, usePaged } from "../runs/paged.ts";
import type { Api, AuditAction, AuditEntry, AuditQuery, PageProps } from "../types.ts";
import { SelectField, TextField } from "../ui/field.tsx";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { type Column, DataTable } from "../ui/table.tsx";

/** The API's actions: a record over its schema's union, so an action added or renamed there fails the build until listed here. */
const ACTIONS = Object.keys({
  "team.create": true,
  "team.rename": true,
  "team.budget": true,
  "team.cell_cpu": true,
  "team.sso": true,
  "team.telemetry": true,
  "user.add": true,
  "user.role": true,
  "user.limits": true,
  "user.remove": true,
  "token.issue": true,
  "token.revoke": true,
  "token.unlock": true,
  "credential.create": true,
  "credential.rotate": true,
  "credential.delete": true,
  "model.create": true,
  "model.update": true,
  "model.enable": true,
  "model.disable": true,
  "model.delete": true,
  "keys.rewrap": true,
  "keys.rotate": true,
  "sso.sign_in": true,
  "sso.sign_out": true,
  "connector.login": true,
} satisfies Record<AuditAction, true>) as AuditAction[];

interface Filter {
  actor: string;
  action: string;
  since: string;
  until: string;
}

const NO_FILTER: Filter = { actor: "", action: "", since: "", until: "" };

/** The filter as query parameters; a datetime-local value is the reader's local time. */
function queryOf(filter: Filter): AuditQuery {
  const at = (value: string) => (value ? new Date(value).toISOString() : undefined);
  return {
    ...(filter.actor.trim() && { actor_id: filter.actor.trim() }),
    ...(filter.action && { action: filter.action as AuditAction }),
    ...(filter.since && { since: at(filter.since) }),
    ...(filter.until && { until: at(filter.until) }),
  };
}

export function AuditPage({ api, me }: PageProps) {
  const [draft, setDraft] = useState<Filter>(NO_FILTER);
  const [filter, setFilter] = useState<Filter>(NO_FILTER);
  const read = useCallback<PageReader<AuditEntry>>(
    (page) =>
      answer(api.GET("/api/v1/audit", { params: { query: { ...queryOf(filter), limit: page.limit, cursor: page.before } } })).then((a) => ({
        items: a.entries,
        next_before: a.next_cursor,
      })),
    [api, filter],
  );
  const entries = usePaged(read);
  const sees = me.operator
    ? "every team's changes"
    : me.user?.role === "admin"
      ? "your team's changes"
      : "what you did and what was done to you";
  const set = (key: keyof Filter) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));
  return (
    <section class="page audit-page">
      <h1>Audit</h1>
      <p class="lead">Who changed what, newest first: {sees}. Entries name keys and headers, never their values.</p>
      <form
        class="panel"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
        }}
      >
        <div class="grid">
          <TextField
            label="Actor"
            name="actor"
            value={draft.actor}
            onValue={set("actor")}
            hint="A user id, operator or local; empty: anyone."
          />
          <SelectField
            label="Action"
            name="action"
            value={draft.action}
            onValue={set("action")}
            options={[{ value: "", label: "Any action" }, ...ACTIONS.map((a) => ({ value: a, label: a }))]}
          />
          <TextField
            label="Since"
            name="since"
            type="datetime-local"
            value={draft.since}
            onValue={set("since")}
            hint="Empty: from the start."
          />
          <TextField label="Until" name="until" type="datetime-local" value={draft.until} onValue={set("until")} hint="Empty: up to now." />
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Apply filters
          </button>
          <button
            type="button"
            onClick={() => {
              setDraft(NO_FILTER);
              setFilter(NO_FILTER);
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <Export api={api} query={queryOf(filter)} />
      {!entries.loading && !entries.error && entries.items.length === 0 ? (
        <p class="empty">No entries.</p>
      ) : (
        <DataTable caption="Audit log, newest first" columns={columns(me.operator)} rows={entries.items} rowKey={(e) => e.id} />
      )}
      <LoadMore list={entries} what="entries" />
    </section>
  );
}

function columns(showTeam: boolean): Column<AuditEntry>[] {
  return [
    { header: "When", cell: (e) => formatDateTime(e.at) },
    { header: "Actor", cell: (e) => e.actor.email ?? e.actor.id },
    { header: "Action", cell: (e) => <code>{e.action}</code> },
    { header: "Target", cell: (e) => `${e.target.kind} ${e.target.name ?? e.target.id}`.trim() },
    { header: "Outcome", cell: (e) => e.outcome },
    ...(showTeam ? [{ header: "Team", cell: (e: AuditEntry) => e.team_id ?? "—" }] : []),
    { header: "From", cell: (e) => e.ip ?? "—" },
    { header: "Details", cell: (e) => <code class="audit-details">{JSON.stringify(e.details)}</code> },
  ];
}

/** Every page of the filter, then one file. */
function Export({ api, query }: { api: Api; query: AuditQuery }) {
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState("");
  const [error, setError] = useState<string | null>(null);
  async function run(kind: "jsonl" | "csv") {
    setBusy(true);
    setError(null);
    setStatus("Exporting…");
    try {
      const all: AuditEntry[] = [];
      let cursor: string | undefined;
      do {
        const page = await answer(api.GET("/api/v1/audit", { params: { query: { ...query, limit: 200, cursor } } }));
        all.push(...page.entries);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      const text = kind === "jsonl" ? toJsonLines(all) : toCsv(all);
      download(`audit.${kind}`, text, kind === "jsonl" ? "application/jsonl" : "text/csv");
      setStatus(`Exported ${all.length} ${all.length === 1 ? "entry" : "entries"}.`);
    } catch (err) {
      setStatus("");
      setError(`Could not export: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div class="actions audit-export">
      <button type="button" disabled={busy} onClick={() => void run("jsonl")}>
        Export JSON Lines
      </button>
      <button type="button" disabled={busy} onClick={() => void run("csv")}>
        Export CSV
      </button>
      <StatusNotice>{status}</StatusNotice>
      <ErrorNotice>{error}</ErrorNotice>
    </div>
  );
}

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  // The click starts the download at once; the URL is not needed after it.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
