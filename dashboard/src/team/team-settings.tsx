// A team's name, monthly token budget and code-mode CPU per cell, edited in place (PATCH /teams/{id});
// the API's messages show by their field and in an alert (ui/form.ts).
import { useState } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import type { Team } from "../types.ts";
import { useApiForm } from "../ui/form.ts";
import { ErrorNotice, StatusNotice } from "../ui/notice.tsx";
import { TextField } from "../ui/field.tsx";
import { parseWhole, wholeText } from "./numbers.ts";
import { TeamFields, teamBody } from "./team-fields.tsx";

export function TeamSettings({ api, team, onSaved }: { api: Api; team: Team; onSaved: (team: Team) => void }) {
  const [name, setName] = useState(team.name);
  const [budget, setBudget] = useState(wholeText(team.monthly_token_budget));
  const [cellCpu, setCellCpu] = useState(wholeText(team.code_mode_cpu_ms));
  const [status, setStatus] = useState("");
  const form = useApiForm();

  const submit = async (e: Event) => {
    e.preventDefault();
    setStatus("");
    const checked = teamBody(name, budget);
    // The API checks the range (docs/hosting.md#limits); here only that it is a whole number.
    const cpu = parseWhole(cellCpu, 0);
    if ("problems" in checked || "error" in cpu) {
      form.fail({ ...("problems" in checked && checked.problems), ...("error" in cpu && { code_mode_cpu_ms: cpu.error }) });
      return;
    }
    const body = { ...checked.body, code_mode_cpu_ms: cpu.value };
    const ok = await form.run(async () => {
      onSaved(await answer(api.PATCH("/api/v1/teams/{team_id}", { params: { path: { team_id: team.id } }, body })));
    }, "name");
    if (ok) setStatus("Team saved.");
  };

  return (
    <form ref={form.formRef} class="team-settings" onSubmit={submit} noValidate aria-labelledby="team-settings-title">
      <h3 id="team-settings-title">Settings</h3>
      <ErrorNotice>{form.alert}</ErrorNotice>
      <TeamFields nameLabel="Name" name={name} onName={setName} budget={budget} onBudget={setBudget} fields={form.fields} />
      <TextField
        label="Code-mode CPU per cell (ms)"
        name="code_mode_cpu_ms"
        value={cellCpu}
        onValue={setCellCpu}
        error={form.fields.code_mode_cpu_ms}
        inputMode="numeric"
        autocomplete="off"
        hint="CPU each code-mode cell of the team's members may use, 1,000 to 300,000. Leave empty for the default 30,000."
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy}>
          {form.busy ? "Saving…" : "Save team"}
        </button>
      </div>
      <StatusNotice>{status}</StatusNotice>
    </form>
  );
}
