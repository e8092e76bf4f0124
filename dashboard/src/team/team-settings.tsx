// A team's name and monthly token budget, edited in place (PATCH /teams/{id});
// the API's messages show by their field and in an alert (ui/form.ts).
import { useState } from "preact/hooks";
import type { Api } from "../api.ts";
import type { Team } from "../types.ts";
import { TextField } from "../ui/field.tsx";
import { useApiForm } from "../ui/form.ts";
import { ErrorNotice, StatusNotice } from "../ui/notice.tsx";
import { parseWhole, wholeText } from "./numbers.ts";

export function TeamSettings({ api, team, onSaved }: { api: Api; team: Team; onSaved: (team: Team) => void }) {
  const [name, setName] = useState(team.name);
  const [budget, setBudget] = useState(wholeText(team.monthly_token_budget));
  const [status, setStatus] = useState("");
  const form = useApiForm();

  const submit = async (e: Event) => {
    e.preventDefault();
    setStatus("");
    const parsed = parseWhole(budget, 0);
    const problems: Record<string, string> = {};
    if (name.trim() === "") problems.name = "Enter a name.";
    if ("error" in parsed) problems.monthly_token_budget = parsed.error;
    if ("error" in parsed || Object.keys(problems).length > 0) {
      form.fail(problems);
      return;
    }
    const ok = await form.run(async () => {
      onSaved(await api.patch<Team>(`/teams/${encodeURIComponent(team.id)}`, { name: name.trim(), monthly_token_budget: parsed.value }));
    }, "name");
    if (ok) setStatus("Team saved.");
  };

  return (
    <form ref={form.formRef} class="team-settings" onSubmit={submit} noValidate aria-labelledby="team-settings-title">
      <h3 id="team-settings-title">Settings</h3>
      <ErrorNotice>{form.alert}</ErrorNotice>
      <div class="form-grid">
        <TextField
          label="Name"
          name="name"
          value={name}
          onValue={setName}
          error={form.fields.name}
          required
          maxLength={200}
          autocomplete="off"
        />
        <TextField
          label="Monthly token budget"
          name="monthly_token_budget"
          value={budget}
          onValue={setBudget}
          error={form.fields.monthly_token_budget}
          inputMode="numeric"
          autocomplete="off"
          hint="Input + output tokens per calendar month (UTC). Leave empty for no budget."
        />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy}>
          {form.busy ? "Saving…" : "Save team"}
        </button>
      </div>
      <StatusNotice>{status}</StatusNotice>
    </form>
  );
}
