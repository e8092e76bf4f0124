// A team's name and monthly token budget, edited in place (PATCH /teams/{id});
// the API's messages show by their field and in an alert (ui/form.ts).
import { useState } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import type { Team } from "../types.ts";
import { useApiForm } from "../ui/form.ts";
import { ErrorNotice, StatusNotice } from "../ui/notice.tsx";
import { wholeText } from "./numbers.ts";
import { TeamFields, teamBody } from "./team-fields.tsx";

export function TeamSettings({ api, team, onSaved }: { api: Api; team: Team; onSaved: (team: Team) => void }) {
  const [name, setName] = useState(team.name);
  const [budget, setBudget] = useState(wholeText(team.monthly_token_budget));
  const [status, setStatus] = useState("");
  const form = useApiForm();

  const submit = async (e: Event) => {
    e.preventDefault();
    setStatus("");
    const checked = teamBody(name, budget);
    if ("problems" in checked) {
      form.fail(checked.problems);
      return;
    }
    const ok = await form.run(async () => {
      onSaved(await answer(api.PATCH("/api/v1/teams/{team_id}", { params: { path: { team_id: team.id } }, body: checked.body })));
    }, "name");
    if (ok) setStatus("Team saved.");
  };

  return (
    <form ref={form.formRef} class="team-settings" onSubmit={submit} noValidate aria-labelledby="team-settings-title">
      <h3 id="team-settings-title">Settings</h3>
      <ErrorNotice>{form.alert}</ErrorNotice>
      <TeamFields nameLabel="Name" name={name} onName={setName} budget={budget} onBudget={setBudget} fields={form.fields} />
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy}>
          {form.busy ? "Saving…" : "Save team"}
        </button>
      </div>
      <StatusNotice>{status}</StatusNotice>
    </form>
  );
}
