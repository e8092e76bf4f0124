// A team's name and monthly token budget, edited in place (PATCH /teams/{id});
// the API's messages show by their field and in an alert.
import { useRef, useState } from "preact/hooks";
import { type Api, ApiError } from "../api.ts";
import type { Team } from "../types.ts";
import { focusFirstInvalid, TextField } from "../ui/field.tsx";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { parseWhole, wholeText } from "./numbers.ts";

export function TeamSettings({ api, team, onSaved }: { api: Api; team: Team; onSaved: (team: Team) => void }) {
  const [name, setName] = useState(team.name);
  const [budget, setBudget] = useState(wholeText(team.monthly_token_budget));
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setStatus("");
    setError("");
    const parsed = parseWhole(budget, 0);
    const problems: Record<string, string> = {};
    if (name.trim() === "") problems.name = "Enter a name.";
    if ("error" in parsed) problems.monthly_token_budget = parsed.error;
    setFields(problems);
    if (Object.keys(problems).length > 0 || "error" in parsed) {
      setTimeout(() => focusFirstInvalid(form.current));
      return;
    }
    setBusy(true);
    try {
      const saved = await api.patch<Team>(`/teams/${encodeURIComponent(team.id)}`, {
        name: name.trim(),
        monthly_token_budget: parsed.value,
      });
      setStatus("Team saved.");
      onSaved(saved);
    } catch (err) {
      setFields(err instanceof ApiError ? err.fields : {});
      setError(`Could not save the team: ${errorText(err)}`);
      setTimeout(() => focusFirstInvalid(form.current));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} class="team-settings" onSubmit={submit} noValidate aria-labelledby="team-settings-title">
      <h3 id="team-settings-title">Settings</h3>
      <ErrorNotice>{error}</ErrorNotice>
      <div class="form-grid">
        <TextField
          label="Name"
          name="name"
          value={name}
          onValue={setName}
          error={fields.name}
          required
          maxLength={200}
          autocomplete="off"
        />
        <TextField
          label="Monthly token budget"
          name="monthly_token_budget"
          value={budget}
          onValue={setBudget}
          error={fields.monthly_token_budget}
          inputMode="numeric"
          autocomplete="off"
          hint="Input + output tokens per calendar month (UTC). Leave empty for no budget."
        />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Saving…" : "Save team"}
        </button>
      </div>
      <StatusNotice>{status}</StatusNotice>
    </form>
  );
}
