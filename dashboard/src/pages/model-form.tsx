// The add / edit / duplicate form of the Models page: every field of POST
// /api/v1/models (src/hosting/admin/model-routes.ts), the usual ones first and the rest under
// "Advanced settings". The API validates; its messages show beside their fields. "Fill in
// from the catalogue" sets limits, images, reasoning and prices from the model catalogues
// (providers/catalogue.ts, loaded on first use), and every field stays the user's to change.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import type { CreateModel, Credential, Me, Model, Scope } from "../types.ts";
import { CheckboxField, Field, SelectField, TextField } from "../ui/field.tsx";
import { useApiForm } from "../ui/form.ts";
import { HeadersEditor } from "../ui/headers-editor.tsx";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { presetOfBaseUrl } from "../providers/presets.ts";
import {
  bodyOf,
  type Draft,
  draftOf,
  keyChoices,
  type ModelFormMode,
  type NUMBERS,
  withCatalogueFill,
  withShownKeys,
} from "./model-draft.ts";
import { scopeHint } from "./scope-hint.ts";

interface ModelFormProps {
  api: Api;
  me: Me;
  mode: ModelFormMode;
  credentials: Credential[];
  /** The caller's other models: what this one may fall back to. */
  models: Model[];
  onSaved: (model: Model) => void;
  onCancel: () => void;
}

export function ModelForm({ api, me, mode, credentials, models, onSaved, onCancel }: ModelFormProps) {
  const isAdmin = me.user?.role === "admin";
  // A fallback deleted since is not listed, so it could not be unticked: it is dropped here.
  const [draft, setDraft] = useState(() => {
    const d = draftOf(mode, credentials, isAdmin);
    const listed = (id: string) => models.some((m) => m.id === id);
    return {
      ...d,
      fallbacks: d.fallbacks.filter(listed),
      compaction_model_id: listed(d.compaction_model_id) ? d.compaction_model_id : "",
      subagent_model_id: listed(d.subagent_model_id) ? d.subagent_model_id : "",
      image_model_id: listed(d.image_model_id) ? d.image_model_id : "",
    };
  });
  const form = useApiForm();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const set =
    <K extends keyof Draft>(key: K) =>
    (value: Draft[K]) =>
      setDraft((d) => ({ ...d, [key]: value }));
  const editing = mode.kind === "edit";
  /** The models this one may name as a fallback or role: not itself; for a team model, team models only. */
  const others = models.filter(
    (m) => m.id !== (mode.kind === "edit" ? mode.model.id : "") && (draft.scope === "user" || m.scope === "team"),
  );
  const credential = credentials.find((c) => c.id === draft.credential_id);
  const suggestions = (credential && presetOfBaseUrl(credential.base_url)?.models) ?? [];
  const suggestionsId = useId();
  const advancedRef = useRef<HTMLDetailsElement>(null);
  const [filling, setFilling] = useState(false);
  const [fillNote, setFillNote] = useState("");

  async function fillFromCatalogue() {
    if (!credential || draft.model.trim() === "") {
      setFillNote("Choose the credential and type the upstream model first.");
      return;
    }
    setFilling(true);
    try {
      const { fillSummary, lookUpModel } = await import("../providers/catalogue.ts");
      const fill = await lookUpModel(credential, draft.model);
      setDraft((d) => withCatalogueFill(d, fill));
      // Most of what a fill sets is under "Advanced settings": open it, so that the user sees what changed.
      if (advancedRef.current && (fill.vision !== undefined || Object.keys(fill.fields).length > 0)) advancedRef.current.open = true;
      setFillNote(fillSummary(draft.model, fill));
    } catch (err) {
      setFillNote(`The catalogue could not be loaded: ${errorText(err)}`);
    } finally {
      setFilling(false);
    }
  }
  const title = mode.kind === "add" ? "Add a model" : mode.kind === "edit" ? `Edit ${mode.model.name}` : `Duplicate ${mode.model.name}`;

  async function submit(e: Event) {
    e.preventDefault();
    const built = bodyOf(withShownKeys(draft, credentials), editing);
    if ("problems" in built) {
      form.fail(built.problems);
      return;
    }
    let saved: Model | undefined;
    const ok = await form.run(async () => {
      // bodyOf sends a number that does not parse as typed, for the API to name (model-draft.ts): the API checks it, not the type.
      saved = editing
        ? await answer(api.PATCH("/api/v1/models/{model_id}", { params: { path: { model_id: mode.model.id } }, body: built.body }))
        : await answer(api.POST("/api/v1/models", { body: built.body as CreateModel }));
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
            {...(suggestions.length > 0 && { list: suggestionsId })}
          />
          {suggestions.length > 0 && (
            <datalist id={suggestionsId}>
              {suggestions.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
          )}
          <div class="field">
            <button type="button" onClick={() => void fillFromCatalogue()} disabled={filling}>
              Fill in from the catalogue
            </button>
            <p class="hint">
              Context window, output limit, images, reasoning and prices of the upstream model, where the catalogue knows them.
            </p>
          </div>
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
              hint={scopeHint(me, isAdmin, "Team models are seen by everyone in the team.", "Members add personal models.")}
              options={[{ value: "user", label: "Personal" }, ...(isAdmin ? [{ value: "team", label: "Team" }] : [])]}
            />
          )}
          {num("context_window", "Context window (tokens)", "Empty: 200000.")}
          {num("price_input_per_mtok", "Input price (USD per million tokens)", undefined, "any")}
          {num("price_output_per_mtok", "Output price (USD per million tokens)", undefined, "any")}
        </div>
        <StatusNotice>{fillNote}</StatusNotice>
        <CheckboxField
          label="Enabled"
          name="enabled"
          checked={draft.enabled}
          onChecked={set("enabled")}
          error={f.enabled}
          hint="Disabled models are not listed in Cursor nor usable."
        />
        <details ref={advancedRef}>
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
          {!draft.vision && (
            <SelectField
              label="Images described by"
              name="image_model_id"
              value={draft.image_model_id}
              onValue={set("image_model_id")}
              error={f.image_model_id}
              options={[
                { value: "", label: "Nobody (a note in their place)" },
                ...others.filter((m) => m.vision).map((m) => ({ value: m.id, label: m.name })),
              ]}
              hint="A model that takes images describes each one in its place, once per image."
            />
          )}
          <CheckboxField
            label="Code mode"
            name="code_mode"
            checked={draft.code_mode}
            onChecked={set("code_mode")}
            error={f.code_mode}
            hint="Offer Cursor runs Codex's exec and wait tools."
          />
          <div class="grid">
            {(["compaction_model_id", "subagent_model_id"] as const).map((field) => (
              <SelectField
                key={field}
                label={field === "compaction_model_id" ? "Summaries written by" : "Subagents run on"}
                name={field}
                value={draft[field]}
                onValue={set(field)}
                error={f[field]}
                options={[{ value: "", label: "This model" }, ...others.map((m) => ({ value: m.id, label: m.name }))]}
                hint={
                  field === "compaction_model_id"
                    ? "The model that summarizes a long conversation."
                    : "When the Task and Cursor choose none."
                }
              />
            ))}
          </div>
          <Keys credentials={credentials} draft={draft} onKeys={set("keys")} onOwnWeight={set("own_weight")} error={f.keys} />
          <Fallbacks models={others} chosen={draft.fallbacks} onChosen={set("fallbacks")} error={f.fallbacks} />
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

/**
 * More credentials behind the model (docs/providers.md#keys-behind-one-model): a box per credential
 * of the same provider kind it may run on (a team model: team credentials), each ticked one with
 * its weight, and the weight of the model's own credential. Shown only when there is one to tick.
 */
function Keys({
  credentials,
  draft,
  onKeys,
  onOwnWeight,
  error,
}: {
  credentials: Credential[];
  draft: Draft;
  onKeys: (keys: Draft["keys"]) => void;
  onOwnWeight: (weight: string) => void;
  error: string | undefined;
}) {
  const own = credentials.find((c) => c.id === draft.credential_id);
  const eligible = keyChoices(credentials, draft);
  if (!own || eligible.length === 0) return null;
  const broken = (c: Credential) => (c.status === "broken" ? `${c.name} (broken: rotate its key)` : c.name);
  return (
    <fieldset class="fallbacks">
      <legend>Keys behind this model</legend>
      <p class="hint">
        Spread its calls over more keys of the same provider, by weight. A key that answers 429 is skipped until its Retry-After has passed;
        one its provider refuses is marked broken and skipped until it is rotated.
      </p>
      <ErrorNotice>{error}</ErrorNotice>
      <TextField
        label={`Weight of ${broken(own)} (this model's credential)`}
        name="own_weight"
        type="number"
        min={1}
        max={1000}
        value={draft.own_weight}
        onValue={onOwnWeight}
      />
      {eligible.map((c) => {
        const chosen = draft.keys.find((k) => k.credential_id === c.id);
        return (
          <div key={c.id} class="grid">
            <CheckboxField
              label={broken(c)}
              name={`key-${c.id}`}
              checked={chosen !== undefined}
              onChecked={(on) =>
                onKeys(on ? [...draft.keys, { credential_id: c.id, weight: "1" }] : draft.keys.filter((k) => k.credential_id !== c.id))
              }
            />
            {chosen && (
              <TextField
                label={`Weight of ${c.name}`}
                name={`key-weight-${c.id}`}
                type="number"
                min={1}
                max={1000}
                value={chosen.weight}
                onValue={(weight) => onKeys(draft.keys.map((k) => (k.credential_id === c.id ? { ...k, weight } : k)))}
              />
            )}
          </div>
        );
      })}
    </fieldset>
  );
}

/**
 * The models a call moves on to when this one fails (docs/providers.md#fallbacks): a box per
 * model it may use, tried in the order they were ticked, which each box's label shows.
 */
function Fallbacks({
  models,
  chosen,
  onChosen,
  error,
}: {
  models: Model[];
  chosen: string[];
  onChosen: (ids: string[]) => void;
  error: string | undefined;
}) {
  if (models.length === 0) return null;
  return (
    <fieldset class="fallbacks">
      <legend>Fallbacks</legend>
      <p class="hint">
        When a call fails before anything streamed (a rate limit, an outage, a context too long), try these, in the order ticked.
      </p>
      <ErrorNotice>{error}</ErrorNotice>
      {models.map((m) => {
        const at = chosen.indexOf(m.id);
        return (
          <CheckboxField
            key={m.id}
            label={at >= 0 ? `${m.name} (${at + 1})` : m.name}
            name={`fallback-${m.id}`}
            checked={at >= 0}
            onChecked={(on) => onChosen(on ? [...chosen, m.id] : chosen.filter((id) => id !== m.id))}
          />
        );
      })}
    </fieldset>
  );
}
