// Extra request headers as name/value rows (a credential's or a model's `headers`),
// each input labelled; an empty row is ignored. A stored header shows its name only:
// its value is secret and never sent back (docs/hosting.md#header-values), so it is
// kept, replaced by typing a new value, or removed. The API checks which names are
// allowed (docs/outbound-safety.md), and its message shows under the group.
import { useId } from "preact/hooks";
import type { HeaderRow } from "./header-rows.ts";

interface HeadersEditorProps {
  rows: HeaderRow[];
  onRows: (rows: HeaderRow[]) => void;
  error?: string | undefined;
}

export function HeadersEditor({ rows, onRows, error }: HeadersEditorProps) {
  const id = useId();
  const set = (i: number, patch: Partial<HeaderRow>) => onRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset class={error ? "field-invalid" : undefined} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>Extra request headers</legend>
      {rows.length === 0 && <p class="hint">None.</p>}
      {rows.map((row, i) => (
        <div class="row-pair" key={i}>
          <div class="field">
            <label for={`${id}-n${i}`}>Header {i + 1} name</label>
            <input
              id={`${id}-n${i}`}
              name="headers"
              value={row.name}
              readOnly={row.stored === true}
              spellcheck={false}
              autocomplete="off"
              {...(error && { "aria-invalid": "true" })}
              onInput={(e) => set(i, { name: e.currentTarget.value })}
            />
          </div>
          <div class="field">
            <label for={`${id}-v${i}`}>Header {i + 1} value</label>
            <input
              id={`${id}-v${i}`}
              value={row.value}
              placeholder={row.stored ? "Stored, hidden: type to replace" : undefined}
              spellcheck={false}
              autocomplete="off"
              onInput={(e) => set(i, { value: e.currentTarget.value })}
            />
          </div>
          <button type="button" onClick={() => onRows(rows.filter((_, j) => j !== i))} aria-label={`Remove header ${i + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onRows([...rows, { name: "", value: "" }])}>
        Add header
      </button>
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </fieldset>
  );
}
