// The operator's view of every team (GET /teams): pick one to manage, or create
// one with a name and an optional monthly budget (POST /teams).
import { useRef, useState } from "preact/hooks";
import { type Api, ApiError } from "../api.ts";
import { formatDateTime, formatNumber } from "../format.ts";
import type { Team } from "../types.ts";
import { focusFirstInvalid, TextField } from "../ui/field.tsx";
import { ErrorNotice, errorText } from "../ui/notice.tsx";
import { parseWhole } from "./numbers.ts";

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
  const [fields, setFields] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError("");
    const parsed = parseWhole(budget, 0);
    const problems: Record<string, string> = {};
    if (name.trim() === "") problems.name = "Enter a name.";
    if ("error" in parsed) problems.monthly_token_budget = parsed.error;
    setFields(problems);
    if ("error" in parsed || problems.name) {
      setTimeout(() => focusFirstInvalid(form.current));
      return;
    }
    setBusy(true);
    try {
      const team = await api.post<Team>("/teams", { name: name.trim(), monthly_token_budget: parsed.value });
      setName("");
      setBudget("");
      onCreated(team);
    } catch (err) {
      setFields(err instanceof ApiError ? err.fields : {});
      setError(`Could not create the team: ${errorText(err)}`);
      setTimeout(() => focusFirstInvalid(form.current));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} onSubmit={submit} noValidate aria-labelledby="create-team-title">
      <h2 id="create-team-title">Create a team</h2>
      <ErrorNotice>{error}</ErrorNotice>
      <div class="form-grid">
        <TextField
          label="Team name"
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
          {busy ? "Creating…" : "Create team"}
        </button>
      </div>
    </form>
  );
}
