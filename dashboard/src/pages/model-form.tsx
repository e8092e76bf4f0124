// The add / edit / duplicate form of the Models page: every field of POST
// /api/v1/models (src/admin/models.ts), the usual ones first and the rest under
// "Advanced settings". The API validates; its messages show beside their fields.
import { useEffect, useRef, useState } from "preact/hooks";
import type { Api } from "../api.ts";
import type { Credential, Me, Model, Scope } from "../types.ts";
import { CheckboxField, Field, SelectField, TextField } from "../ui/field.tsx";
import { useApiForm } from "../ui/form.ts";
import { type HeaderRow, HeadersEditor, headersOf, rowsOf } from "../ui/headers-editor.tsx";
import { ErrorNotice } from "../ui/notice.tsx";

export type ModelFormMode = { kind: "add" } | { kind: "edit"; model: Model } | { kind: "duplicate"; model: Model };

interface Draft {
  name: string;
  credential_id: string;
  model: string;
  scope: Scope;
  context_window: string;
  max_output_tokens: string;
  reasoning_effort: string;
  fast_service_tier: string;
  stall_timeout_ms: string;
  price_input_per_mtok: string;
  price_output_per_mtok: string;
  price_cache_read_per_mtok: string;
  price_cache_write_per_mtok: string;
  vision: boolean;
  code_mode: boolean;
  enabled: boolean;
  headers: HeaderRow[];
  extra_body: string;
}

const NUMBERS = [
  "context_window",
  "max_output_tokens",
  "stall_timeout_ms",
  "price_input_per_mtok",
  "price_output_per_mtok",
  "price_cache_read_per_mtok",
  "price_cache_write_per_mtok",
] as const;
const TEXTS = ["reasoning_effort", "fast_service_tier"] as const;

const text = (v: number | string | null | undefined) => (v === null || v === undefined ? "" : String(v));

function draftOf(mode: ModelFormMode, credentials: Credential[], defaultScope: Scope): Draft {
  const m = mode.kind === "add" ? undefined : mode.model;
  return {
    name: m ? (mode.kind === "duplicate" ? `${m.name}-copy` : m.name) : "",
    credential_id: m?.credential_id ?? credentials[0]?.id ?? "",
    model: m?.model ?? "",
    scope: m?.scope ?? defaultScope,
    context_window: text(m?.context_window),
    max_output_tokens: text(m?.max_output_tokens),
    reasoning_effort: text(m?.reasoning_effort),
    fast_service_tier: text(m?.fast_service_tier),
    stall_timeout_ms: text(m?.stall_timeout_ms),
    price_input_per_mtok: text(m?.price_input_per_mtok),
    price_output_per_mtok: text(m?.price_output_per_mtok),
    price_cache_read_per_mtok: text(m?.price_cache_read_per_mtok),
    price_cache_write_per_mtok: text(m?.price_cache_write_per_mtok),
    vision: m?.vision ?? true,
    code_mode: m?.code_mode ?? false,
    enabled: m?.enabled ?? true,
    headers: rowsOf(m?.headers),
    extra_body: m?.extra_body ? JSON.stringify(m.extra_body, null, 2) : "",
  };
}

/**
 * The request body. An empty optional field is left out of a new model and cleared (null) in an
 * edit. A number that does not parse is sent as typed, so the API's own message says what is wrong.
 */
function bodyOf(d: Draft, editing: boolean): { body: Record<string, unknown> } | { problems: Record<string, string> } {
  const empty = editing ? null : undefined;
  const body: Record<string, unknown> = { name: d.name, credential_id: d.credential_id, model: d.model };
  if (!editing) body.scope = d.scope;
  for (const key of NUMBERS) {
    const raw = d[key].trim();
    const n = Number(raw);
    body[key] = raw === "" ? empty : Number.isFinite(n) ? n : raw;
  }
  for (const key of TEXTS) body[key] = d[key].trim() === "" ? empty : d[key];
  body.vision = d.vision;
  body.code_mode = d.code_mode;
  body.enabled = d.enabled;
  const headers = headersOf(d.headers);
  body.headers = Object.keys(headers).length > 0 ? headers : empty;
  if (d.extra_body.trim() === "") body.extra_body = empty;
  else {
    try {
      body.extra_body = JSON.parse(d.extra_body) as unknown;
    } catch {
      return { problems: { extra_body: 'This is not valid JSON; write an object such as {"temperature": 0.2}.' } };
    }
  }
  for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
  return { body };
}

interface ModelFormProps {
  api: Api;
  me: Me;
  mode: ModelFormMode;
  credentials: Credential[];
  onSaved: (model: Model) => void;
  onCancel: () => void;
}

export function ModelForm({ api, me, mode, credentials, onSaved, onCancel }: ModelFormProps) {
  const isAdmin = me.user?.role === "admin";
  const [draft, setDraft] = useState(() => draftOf(mode, credentials, "user"));
  const form = useApiForm();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setDraft((d) => ({ ...d, [key]: value }));
  const editing = mode.kind === "edit";
  const title = mode.kind === "add" ? "Add a model" : mode.kind === "edit" ? `Edit ${mode.model.name}` : `Duplicate ${mode.model.name}`;

  async function submit(e: Event) {
    e.preventDefault();
    const built = bodyOf(draft, editing);
    if ("problems" in built) {
      form.fail(built.problems);
      return;
    }
    let saved: Model | undefined;
    const ok = await form.run(async () => {
      saved = editing
        ? await api.patch<Model>(`/models/${encodeURIComponent(mode.model.id)}`, built.body)
        : await api.post<Model>("/models", built.body);
    }, "name");
    if (ok && saved) onSaved(saved);
  }

  const f = form.fields;
  const num = (key: (typeof NUMBERS)[number], label: string, hint?: string, step: number | "any" = 1) => (
    <TextField
      label={label}
      name={key}
      type="number"
      min={0}
      step={step}
      inputMode={step === "any" ? "decimal" : "numeric"}
      value={draft[key]}
      onValue={set(key)}
      error={f[key]}
      hint={hint}
    />
  );
  return (
    <section class="panel" aria-labelledby="model-form-title">
      <h2 id="model-form-title" ref={headingRef} tabIndex={-1}>
        {title}
      </h2>
      <ErrorNotice>{form.alert}</ErrorNotice>
      <form ref={form.formRef} onSubmit={submit} noValidate>
        <div class="grid">
          <TextField
            label="Name"
            name="name"
            required
            maxLength={200}
            value={draft.name}
            onValue={set("name")}
            error={f.name}
            hint="What Cursor shows in its model list."
          />
          <SelectField
            label="Credential"
            name="credential_id"
            required
            value={draft.credential_id}
            onValue={set("credential_id")}
            error={f.credential_id}
            hint="The provider key it runs on."
            options={credentials.map((c) => ({
              value: c.id,
              label: `${c.name} (${c.provider}, ${c.scope === "team" ? "team" : "personal"})`,
            }))}
          />
          <TextField
            label="Upstream model"
            name="model"
            required
            maxLength={200}
            spellcheck={false}
            value={draft.model}
            onValue={set("model")}
            error={f.model}
            hint="The provider's own model id, e.g. gpt-5."
          />
          {editing ? (
            <Field label="Scope" name="scope">
              {(control) => <input {...control} value={draft.scope === "team" ? "Team" : "Personal"} readOnly />}
            </Field>
          ) : (
            <SelectField
              label="Scope"
              name="scope"
              value={draft.scope}
              onValue={(v) => set("scope")(v as Scope)}
              error={f.scope}
              hint={isAdmin ? "Team models are seen by everyone in the team." : "Members add personal models."}
              options={[{ value: "user", label: "Personal" }, ...(isAdmin ? [{ value: "team", label: "Team" }] : [])]}
            />
          )}
          {num("context_window", "Context window (tokens)", "Empty: 200000.")}
          {num("price_input_per_mtok", "Input price (USD per million tokens)", undefined, "any")}
          {num("price_output_per_mtok", "Output price (USD per million tokens)", undefined, "any")}
        </div>
        <CheckboxField
          label="Enabled"
          name="enabled"
          checked={draft.enabled}
          onChecked={set("enabled")}
          error={f.enabled}
          hint="Disabled models are not listed in Cursor nor usable."
        />
        <details>
          <summary>Advanced settings</summary>
          <div class="grid">
            {num("price_cache_read_per_mtok", "Cache-read price (USD per million tokens)", "Empty: the input price.", "any")}
            {num("price_cache_write_per_mtok", "Cache-write price (USD per million tokens)", "Empty: the input price.", "any")}
            {num("max_output_tokens", "Max output tokens")}
            {num("stall_timeout_ms", "Stall timeout (ms)", "How long a silent stream may stall; 1000 to 3600000.")}
            <TextField
              label="Reasoning effort"
              name="reasoning_effort"
              maxLength={50}
              value={draft.reasoning_effort}
              onValue={set("reasoning_effort")}
              error={f.reasoning_effort}
              hint="e.g. medium"
            />
            <TextField
              label="Fast service tier"
              name="fast_service_tier"
              maxLength={50}
              value={draft.fast_service_tier}
              onValue={set("fast_service_tier")}
              error={f.fast_service_tier}
              hint="e.g. priority"
            />
          </div>
          <CheckboxField label="Takes images" name="vision" checked={draft.vision} onChecked={set("vision")} error={f.vision} />
          <CheckboxField
            label="Code mode"
            name="code_mode"
            checked={draft.code_mode}
            onChecked={set("code_mode")}
            error={f.code_mode}
            hint="Offer Cursor runs Codex's exec and wait tools."
          />
          <HeadersEditor rows={draft.headers} onRows={set("headers")} error={f.headers} />
          <Field label="Extra request body (JSON)" name="extra_body" error={f.extra_body} hint="Merged into every provider request body.">
            {(control) => (
              <textarea
                {...control}
                spellcheck={false}
                value={draft.extra_body}
                onInput={(e) => set("extra_body")(e.currentTarget.value)}
              />
            )}
          </Field>
        </details>
        <div class="actions">
          <button type="submit" class="primary" disabled={form.busy}>
            {editing ? "Save model" : "Add model"}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
