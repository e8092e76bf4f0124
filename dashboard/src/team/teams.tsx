// The operator's view of every team (GET /teams): pick one to manage, or create
// one with a name and an optional monthly budget (POST /teams).
import { useState } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import { formatDateTime, formatNumber } from "../format.ts";
import type { Team } from "../types.ts";
import { useApiForm } from "../ui/form.ts";
import { ErrorNotice } from "../ui/notice.tsx";
import { type Column, DataTable } from "../ui/table.tsx";
import { TeamFields, teamBody } from "./team-fields.tsx";

export function TeamList({ teams, selected, onPick }: { teams: Team[]; selected: string | undefined; onPick: (id: string) => void }) {
  const columns: Column<Team>[] = [
    { header: "Team", cell: (t) => t.name },
    {
      header: "Monthly token budget",
      numeric: true,
      cell: (t) => (t.monthly_token_budget === null ? "none" : formatNumber(t.monthly_token_budget)),
    },
    { header: "Created", cell: (t) => formatDateTime(t.created_at) },
    {
      header: "Manage",
      cell: (t) => (
        <button type="button" aria-pressed={t.id === selected} onClick={() => onPick(t.id)}>
          Manage<span class="visually-hidden"> {t.name}</span>
        </button>
      ),
    },
  ];
  return (
    <DataTable
      caption="All teams"
      class="teams"
      columns={columns}
      rows={teams}
      rowKey={(t) => t.id}
      current={(t) => t.id === selected}
      empty="No teams yet. Create the first one below."
    />
  );
}

export function CreateTeam({ api, onCreated }: { api: Api; onCreated: (team: Team) => void }) {
  const [name, setName] = useState("");
  const [budget, setBudget] = useState("");
  const form = useApiForm();

  const submit = async (e: Event) => {
    e.preventDefault();
    const checked = teamBody(name, budget);
    if ("problems" in checked) {
      form.fail(checked.problems);
      return;
    }
    let team: Team | undefined;
    const ok = await form.run(async () => {
      team = await answer(api.POST("/api/v1/teams", { body: checked.body }));
    }, "name");
    if (ok && team) {
      setName("");
      setBudget("");
      onCreated(team);
    }
  };

  return (
    <form ref={form.formRef} onSubmit={submit} noValidate aria-labelledby="create-team-title">
      <h2 id="create-team-title">Create a team</h2>
      <ErrorNotice>{form.alert}</ErrorNotice>
      <TeamFields nameLabel="Team name" name={name} onName={setName} budget={budget} onBudget={setBudget} fields={form.fields} />
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy}>
          {form.busy ? "Creating…" : "Create team"}
        </button>
      </div>
    </form>
  );
}
