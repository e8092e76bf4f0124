// A team's name and monthly token budget: the fields and their checks, shared by the
// operator's create form (teams.tsx) and a team's settings (team-settings.tsx).
import { TextField } from "../ui/field.tsx";
import { parseWhole } from "./numbers.ts";

/** The body for POST/PATCH /teams, or the problems to show by their fields. */
export function teamBody(
  name: string,
  budget: string,
): { body: { name: string; monthly_token_budget: number | null } } | { problems: Record<string, string> } {
  const parsed = parseWhole(budget, 0);
  const problems: Record<string, string> = {};
  if (name.trim() === "") problems.name = "Enter a name.";
  if ("error" in parsed) problems.monthly_token_budget = parsed.error;
  if ("error" in parsed || Object.keys(problems).length > 0) return { problems };
  return { body: { name: name.trim(), monthly_token_budget: parsed.value } };
}

interface TeamFieldsProps {
  nameLabel: string;
  name: string;
  onName: (value: string) => void;
  budget: string;
  onBudget: (value: string) => void;
  fields: Record<string, string | undefined>;
}

export function TeamFields({ nameLabel, name, onName, budget, onBudget, fields }: TeamFieldsProps) {
  return (
    <div class="form-grid">
      <TextField
        label={nameLabel}
        name="name"
        value={name}
        onValue={onName}
        error={fields.name}
        required
        maxLength={200}
        autocomplete="off"
      />
      <TextField
        label="Monthly token budget"
        name="monthly_token_budget"
        value={budget}
        onValue={onBudget}
        error={fields.monthly_token_budget}
        inputMode="numeric"
        autocomplete="off"
        hint="Input + output tokens per calendar month (UTC). Leave empty for no budget."
      />
    </div>
  );
}
