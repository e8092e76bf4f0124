// The fields of a team user: email (when adding), role and the two limits
// (docs/hosting.md#limits). Blank limits are "no limit" (null); the same form
// adds a user (POST /teams/{id}/users) and edits one (PATCH /users/{id}).
import { useState } from "preact/hooks";
import type { User } from "../types.ts";
import { SelectField, TextField } from "../ui/field.tsx";
import { useApiForm } from "../ui/form.ts";
import { ErrorNotice } from "../ui/notice.tsx";
import { parseWhole, wholeText } from "./numbers.ts";

/** What the form sends: the user's role and limits, and the email when adding. */
export type UserFields = Pick<User, "role" | "requests_per_minute" | "max_concurrent_runs"> & { email?: string };

const ROLES = [
  { value: "member", label: "Member" },
  { value: "admin", label: "Admin (manages the team)" },
];

interface Props {
  /** The user being edited; absent when adding one. */
  user?: User;
  submitLabel: string;
  /** Sends the body; throws ApiError to show its messages. */
  onSubmit: (body: UserFields) => Promise<void>;
  onCancel?: () => void;
}

export function UserForm({ user, submitLabel, onSubmit, onCancel }: Props) {
  const [email, setEmail] = useState(user?.email ?? "");
  const [role, setRole] = useState<string>(user?.role ?? "member");
  const [rpm, setRpm] = useState(wholeText(user?.requests_per_minute ?? null));
  const [concurrent, setConcurrent] = useState(wholeText(user?.max_concurrent_runs ?? null));
  const form = useApiForm();
  const adding = user === undefined;

  const submit = async (e: Event) => {
    e.preventDefault();
    const rpmValue = parseWhole(rpm, 1);
    const concurrentValue = parseWhole(concurrent, 1);
    const problems: Record<string, string> = {};
    if (adding && !/^[^\s@]+@[^\s@]+$/.test(email.trim())) problems.email = "Enter an email address.";
    if ("error" in rpmValue) problems.requests_per_minute = rpmValue.error;
    if ("error" in concurrentValue) problems.max_concurrent_runs = concurrentValue.error;
    if ("error" in rpmValue || "error" in concurrentValue || Object.keys(problems).length > 0) {
      form.fail(problems);
      return;
    }
    const ok = await form.run(
      () =>
        onSubmit({
          ...(adding && { email: email.trim() }),
          role: role === "admin" ? "admin" : "member",
          requests_per_minute: rpmValue.value,
          max_concurrent_runs: concurrentValue.value,
        }),
      adding ? "email" : undefined, // a taken email: said at the Email field
    );
    if (ok && adding) {
      setEmail("");
      setRpm("");
      setConcurrent("");
      setRole("member");
    }
  };

  return (
    <form ref={form.formRef} class="user-form" onSubmit={submit} noValidate aria-label={adding ? "Add a user" : `Edit ${user.email}`}>
      <ErrorNotice>{form.alert}</ErrorNotice>
      <div class="form-grid">
        {adding && (
          <TextField
            label="Email"
            name="email"
            type="email"
            value={email}
            onValue={setEmail}
            error={form.fields.email}
            required
            autocomplete="off"
          />
        )}
        <SelectField label="Role" name="role" value={role} onValue={setRole} options={ROLES} error={form.fields.role} />
        <TextField
          label="Requests per minute"
          name="requests_per_minute"
          value={rpm}
          onValue={setRpm}
          error={form.fields.requests_per_minute}
          inputMode="numeric"
          autocomplete="off"
          hint="Runs started in any 60 s. Empty: no limit."
        />
        <TextField
          label="Concurrent runs"
          name="max_concurrent_runs"
          value={concurrent}
          onValue={setConcurrent}
          error={form.fields.max_concurrent_runs}
          inputMode="numeric"
          autocomplete="off"
          hint="Runs in progress at once. Empty: no limit."
        />
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={form.busy}>
          {form.busy ? "Saving…" : submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
