// A labelled form field with its hint and inline error: the error is tied to the
// control with aria-describedby and marks it aria-invalid, so a screen reader reads
// it with the field. `focusFirstInvalid` moves focus to the first such field.
import type { ComponentChildren, JSX } from "preact";
import { useId } from "preact/hooks";

interface ControlProps {
  id: string;
  name: string;
  "aria-invalid"?: "true";
  "aria-describedby"?: string;
}

interface FieldProps {
  label: string;
  name: string;
  /** The API's message for this field, if any. */
  error?: string | undefined;
  hint?: ComponentChildren;
  /** Renders the control with the props that tie it to the label, hint and error. */
  children: (control: ControlProps) => JSX.Element;
}

export function Field({ label, name, error, hint, children }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : "", error ? errorId : ""].filter(Boolean).join(" ");
  return (
    <div class={error ? "field field-invalid" : "field"}>
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {children({ id, name, ...(error && { "aria-invalid": "true" }), ...(describedBy && { "aria-describedby": describedBy }) })}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

interface TextFieldProps {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  error?: string | undefined;
  hint?: ComponentChildren;
  type?: "text" | "url" | "number" | "password" | "email" | "datetime-local";
  required?: boolean;
  autocomplete?: string;
  placeholder?: string;
  maxLength?: number;
  min?: number;
  max?: number;
  step?: number | "any";
  spellcheck?: boolean;
  inputMode?: "numeric" | "decimal" | "url" | "text";
  /** The id of a <datalist> of suggestions. */
  list?: string;
}

/** A text-like <input> (text, url, number, password…) in a Field; HTML constraints for the obvious rules, the API decides. */
export function TextField({ label, name, value, onValue, error, hint, type = "text", ...attrs }: TextFieldProps) {
  return (
    <Field label={label} name={name} error={error} hint={hint}>
      {(control) => (
        // preact types <input> as a union per type; every type here takes these attributes
        <input type={type as "text"} {...attrs} {...control} value={value} onInput={(e) => onValue(e.currentTarget.value)} />
      )}
    </Field>
  );
}

interface SelectFieldProps {
  label: string;
  name: string;
  value: string;
  onValue: (value: string) => void;
  options: { value: string; label: string }[];
  error?: string | undefined;
  hint?: ComponentChildren;
  required?: boolean;
  disabled?: boolean;
}

export function SelectField({ label, name, value, onValue, options, error, hint, required, disabled }: SelectFieldProps) {
  return (
    <Field label={label} name={name} error={error} hint={hint}>
      {(control) => (
        <select {...control} value={value} required={required} disabled={disabled} onChange={(e) => onValue(e.currentTarget.value)}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

interface CheckboxFieldProps {
  label: string;
  name: string;
  checked: boolean;
  onChecked: (checked: boolean) => void;
  error?: string | undefined;
  hint?: ComponentChildren;
}

/** A checkbox with its label after it, as people expect. */
export function CheckboxField({ label, name, checked, onChecked, error, hint }: CheckboxFieldProps) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={error ? "field field-check field-invalid" : "field field-check"}>
      <input
        type="checkbox"
        id={id}
        name={name}
        checked={checked}
        onChange={(e) => onChecked(e.currentTarget.checked)}
        {...(error && { "aria-invalid": "true" })}
        {...(describedBy && { "aria-describedby": describedBy })}
      />
      <label for={id}>{label}</label>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** After a render with field errors: focus the first invalid control of `form` (opening a collapsed <details> around it). */
export function focusFirstInvalid(form: HTMLFormElement | null): void {
  const first = form?.querySelector<HTMLElement>('[aria-invalid="true"]');
  if (!first) return;
  const details = first.closest("details");
  if (details) details.open = true;
  first.focus();
}
