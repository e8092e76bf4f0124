// The operator's view of every team (GET /teams): pick one to manage, or create
// one with a name and an optional monthly budget (POST /teams).
import { useState } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import { formatDateTime, formatNumber } from "../format.ts";
import type { Team } from "../types.ts";
import { useApiForm } from "../ui/form.ts";
import { ErrorNotice } from "../ui/notice.tsx";
import { TeamFields, teamBody } from "./team-fields.tsx";

export function TeamList({ teams, selected, onPick }: { teams: Team[]; selected: string | undefined; onPick: (id: string) => void }) {
  if (teams.length === 0) return <p class="empty">No teams yet. Create the first one below.</p>;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways must be reachable by keyboard to scroll it
    <section class="table-wrap" aria-label="All teams" tabIndex={0}>
      <table class="teams">
        <caption>All teams</caption>
        <thead>
          <tr>
            <th scope="col">Team</th>
            <th scope="col" class="num">
              Monthly token budget
            </th>
            <th scope="col">Created</th>
            <th scope="col">Manage</th>
          </tr>
        </thead>
        <tbody>
          {teams.map((t) => (
            <tr key={t.id} aria-current={t.id === selected ? "true" : undefined}>
              <th scope="row">{t.name}</th>
              <td class="num">{t.monthly_token_budget === null ? "none" : formatNumber(t.monthly_token_budget)}</td>
              <td>{formatDateTime(t.created_at)}</td>
              <td>
                <button type="button" aria-pressed={t.id === selected} onClick={() => onPick(t.id)}>
                  Manage<span class="visually-hidden"> {t.name}</span>
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
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
