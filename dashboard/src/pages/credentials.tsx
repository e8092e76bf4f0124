// The Credentials page (docs/dashboard.md#credentials): provider keys, added,
// rotated and deleted. A key is sent once and never shown again: the page shows only
// its last four characters. The add form keeps the typed key (in memory) only while
// the API's 400 or 409 is being fixed; any other outcome, Cancel or leaving drops it.
// A provider picked from the list (providers/presets.ts) fills the kind and base URL.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, answer } from "../api.ts";
import { formatDateTime } from "../format.ts";
import type { Credential, Model, PageProps, ProviderKind, Scope } from "../types.ts";
import { useConfirm } from "../ui/confirm.tsx";
import { SelectField, TextField } from "../ui/field.tsx";
import { useApiForm } from "../ui/form.ts";
import { type HeaderRow, headersOf } from "../ui/header-rows.ts";
import { HeadersEditor } from "../ui/headers-editor.tsx";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { baseUrlOf, PRESETS, type ProviderPreset, presetById, unfilledPlaceholder } from "../providers/presets.ts";
import { type Column, DataTable } from "../ui/table.tsx";
import { scopeHint } from "./scope-hint.ts";

const PROVIDERS: { value: ProviderKind; label: string }[] = [
  { value: "openai-chat", label: "OpenAI Chat Completions (and compatible)" },
  { value: "openai-responses", label: "OpenAI Responses" },
  { value: "anthropic", label: "Anthropic Messages" },
];

/** "…abcd"; keys under 8 characters keep even those to themselves; "none" for a server that checks no key. */
const lastFour = (c: Credential) => (!c.has_key ? "none" : c.key_last_four ? `…${c.key_last_four}` : "(hidden: short key)");

export function CredentialsPage({ api, me }: PageProps) {
  const [credentials, setCredentials] = useState<Credential[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const [adding, setAdding] = useState(false);
  const [rotating, setRotating] = useState<Credential | null>(null);
  const [confirmDialog, ask] = useConfirm();
  const addRef = useRef<HTMLButtonElement>(null);
  /** Who stores keys: a team's users and the single user, not the operator. */
  const mayAdd = me.principal !== "operator";
  const isAdmin = me.operator || me.user?.role === "admin";

  async function load() {
    try {
      setCredentials((await answer(api.GET("/api/v1/credentials"))).credentials);
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(err));
    }
  }
  useEffect(() => {
    void load();
  }, []);

  const canManage = (c: Credential) => me.operator || c.scope === "user" || isAdmin;
  const backToList = () => requestAnimationFrame(() => addRef.current?.focus());

  async function remove(c: Credential) {
    let onIt: Model[] = [];
    try {
      onIt = (await answer(api.GET("/api/v1/models"))).models.filter((m) => m.credential_id === c.id);
    } catch {
      // the count is a courtesy; the confirmation says what happens either way
    }
    const ok = await ask({
      title: `Delete ${c.name}?`,
      body: (
        <p>
          Its key is destroyed and the models that run on it stop working
          {onIt.length > 0 ? `: ${onIt.map((m) => m.name).join(", ")}` : ""}. This cannot be undone.
        </p>
      ),
      confirm: "Delete credential",
    });
    if (!ok) return;
    setActionError(null);
    try {
      await api.DELETE("/api/v1/credentials/{credential_id}", { params: { path: { credential_id: c.id } } });
      setCredentials((list) => list?.filter((x) => x.id !== c.id) ?? null);
      setStatus(`${c.name} deleted.`);
      backToList();
    } catch (err) {
      setActionError(errorText(err));
    }
  }

  const columns: Column<Credential>[] = [
    { header: "Name", cell: (c) => c.name },
    { header: "Provider", cell: (c) => c.provider },
    { header: "Base URL", cell: (c) => <code>{c.base_url}</code> },
    {
      header: "Scope",
      // Sealed to its owner's own tokens (docs/keys-at-rest.md#personal-keys): nobody else can use it.
      cell: (c) => (c.scope === "team" ? "Team" : c.sealed_to_owner ? "Personal (sealed to your tokens)" : "Personal"),
    },
    { header: "Key", cell: (c) => <code>{lastFour(c)}</code> },
    // Header values are never shown (docs/hosting.md#header-values); their names are.
    { header: "Headers", cell: (c) => (c.header_names.length === 0 ? "none" : <code>{c.header_names.join(", ")}</code>) },
    {
      header: "Status",
      // Refused by its provider since it was last written: models with several keys skip it (docs/providers.md#keys-behind-one-model).
      cell: (c) =>
        c.status === "broken" ? (
          <span class="badge badge-broken" title={c.broken_reason ?? undefined}>
            Broken since {formatDateTime(c.broken_at ?? c.updated_at)}: rotate its key
          </span>
        ) : (
          "OK"
        ),
    },
    { header: "Updated", cell: (c) => formatDateTime(c.updated_at) },
    {
      header: "Actions",
      cell: (c) =>
        canManage(c) ? (
          <div class="actions">
            <button type="button" onClick={() => setRotating(c)} aria-label={`Rotate key of ${c.name}`}>
              Rotate key
            </button>
            <button type="button" class="danger" onClick={() => void remove(c)} aria-label={`Delete ${c.name}`}>
              Delete
            </button>
          </div>
        ) : (
          <span class="muted">team admins manage it</span>
        ),
    },
  ];

  return (
    <>
      <h1>Credentials</h1>
      <p class="muted">Provider keys, stored encrypted. A key is never shown again after it is saved: only its last four characters.</p>
      <ErrorNotice>{loadError && `Could not load the credentials: ${loadError}`}</ErrorNotice>
      <ErrorNotice>{actionError}</ErrorNotice>
      <StatusNotice>{status}</StatusNotice>
      {mayAdd && !adding && (
        <div class="actions">
          <button type="button" class="primary" ref={addRef} onClick={() => setAdding(true)}>
            Add a credential
          </button>
        </div>
      )}
      {adding && (
        <AddCredential
          {...{ api, me }}
          onCancel={() => {
            setAdding(false);
            backToList();
          }}
          onSaved={(c) => {
            setAdding(false);
            setStatus(c.has_key ? `${c.name} added; its key ends in ${lastFour(c)}.` : `${c.name} added, without a key.`);
            setCredentials((list) => [...(list ?? []), c]);
            backToList();
          }}
        />
      )}
      {rotating && (
        <RotateKey
          {...{ api, me }}
          credential={rotating}
          onCancel={() => {
            setRotating(null);
            backToList();
          }}
          onSaved={(c) => {
            setRotating(null);
            setStatus(`The key of ${c.name} was replaced; it now ends in ${lastFour(c)}.`);
            setCredentials((list) => list?.map((x) => (x.id === c.id ? c : x)) ?? null);
            backToList();
          }}
        />
      )}
      {credentials === null && !loadError ? (
        <p role="status">Loading…</p>
      ) : (
        <DataTable caption="Credentials" columns={columns} rows={credentials ?? []} rowKey={(c) => c.id} empty="No credentials yet." />
      )}
      {confirmDialog}
    </>
  );
}

interface FormProps extends PageProps {
  onSaved: (c: Credential) => void;
  onCancel: () => void;
}

/** A preset's label without what it adds for the list: "Ollama (on this machine)" names a credential "Ollama". */
const defaultName = (p: ProviderPreset) => p.label.replace(/\s*\(.*\)$/, "");

const PRESET_OPTIONS = [{ value: "", label: "None: I fill in the fields" }, ...PRESETS.map((p) => ({ value: p.id, label: p.label }))];

/** What the picked preset filled in, where its key comes from, and for a local server where loopback URLs are allowed. */
function PresetHint({ preset }: { preset: ProviderPreset | undefined }) {
  if (!preset) return <>Pick one to fill in the provider and base URL.</>;
  return (
    <>
      Filled in the provider and base URL; change them if yours differ.{" "}
      <a href={preset.docs} target="_blank" rel="noreferrer">
        {preset.local ? "Its OpenAI-compatible API" : "Where to find the key"}
      </a>
      .
      {preset.local && (
        <>
          {" "}
          A local <code>npm run dev</code> allows loopback URLs (the <code>.dev.vars</code> it writes sets{" "}
          <code>BYOK_ALLOW_PRIVATE_UPSTREAMS=true</code>); a deployment refuses them unless it sets that too, and a Worker on Cloudflare
          cannot reach this machine at all.
        </>
      )}
    </>
  );
}

function AddCredential({ api, me, onSaved, onCancel }: FormProps) {
  const [presetId, setPresetId] = useState("");
  const [names, setNames] = useState<Record<string, string>>({});
  const [name, setName] = useState("");
  const [provider, setProvider] = useState<ProviderKind>("openai-chat");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [scope, setScope] = useState<Scope>("user");
  const [headers, setHeaders] = useState<HeaderRow[]>([]);
  const form = useApiForm();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const isAdmin = me.user?.role === "admin";
  const preset = presetById(presetId);

  function choose(id: string) {
    const next = presetById(id);
    // The name follows the preset until the user writes one of their own.
    if (next && (name.trim() === "" || (preset && name === defaultName(preset)))) setName(defaultName(next));
    setPresetId(id);
    setNames({});
    if (!next) return;
    setProvider(next.provider);
    setBaseUrl(next.baseUrl);
  }
  function nameIt(placeholder: string, value: string) {
    const next = { ...names, [placeholder]: value };
    setNames(next);
    if (preset) setBaseUrl(baseUrlOf(preset, next));
  }

  /** What the form itself can tell before sending: a placeholder left in the base URL, a key the preset needs. */
  function problems(): Record<string, string> {
    const found: Record<string, string> = {};
    const hole = unfilledPlaceholder(baseUrl);
    if (hole) {
      const label = preset?.placeholders?.find((p) => p.name === hole)?.label;
      found.base_url = `Replace {${hole}} in the base URL${label ? ` (fill in ${label})` : ""}.`;
    }
    if (preset?.keyNeeded && apiKey.trim() === "") found.api_key = `${preset.label} needs a key. ${preset.keyHint}`;
    return found;
  }

  async function submit(e: Event) {
    e.preventDefault();
    const found = problems();
    if (Object.keys(found).length > 0) {
      form.fail(found);
      return;
    }
    const h = headersOf(headers);
    const body = { name, provider, base_url: baseUrl, api_key: apiKey, scope, ...(Object.keys(h).length > 0 && { headers: h }) };
    let saved: Credential | undefined;
    let fixable = false;
    const ok = await form.run(async () => {
      try {
        saved = await answer(api.POST("/api/v1/credentials", { body }));
      } catch (err) {
        fixable = err instanceof ApiError && (err.status === 400 || err.status === 409);
        throw err;
      }
    }, "name");
    // Kept (in this form's memory only) while the user fixes a field the API refused; otherwise gone.
    // On success the form closes and the key with it, as it does on Cancel or leaving the page.
    if (!fixable) setApiKey("");
    if (ok && saved) onSaved(saved);
  }
  const f = form.fields;
  return (
    <section class="panel" aria-labelledby="credential-form-title">
      <h2 id="credential-form-title" ref={headingRef} tabIndex={-1}>
        Add a credential
      </h2>
      <ErrorNotice>{form.alert}</ErrorNotice>
      <form ref={form.formRef} onSubmit={submit} noValidate>
        <SelectField
          label="Provider preset"
          name="preset"
          value={presetId}
          onValue={choose}
          options={PRESET_OPTIONS}
          hint={<PresetHint preset={preset} />}
        />
        <div class="grid">
          <TextField label="Name" name="name" required maxLength={200} value={name} onValue={setName} error={f.name} />
          <SelectField
            label="Provider"
            name="provider"
            value={provider}
            onValue={(v) => setProvider(v as ProviderKind)}
            options={PROVIDERS}
            error={f.provider}
          />
          <TextField
            label="Base URL"
            name="base_url"
            type="url"
            required
            spellcheck={false}
            placeholder="https://api.openai.com/v1"
            value={baseUrl}
            onValue={setBaseUrl}
            error={f.base_url}
          />
          {preset?.placeholders?.map((p) => (
            <TextField
              key={p.name}
              label={p.label}
              name={`preset_${p.name}`}
              required
              spellcheck={false}
              value={names[p.name] ?? ""}
              onValue={(v) => nameIt(p.name, v)}
              hint={p.hint}
            />
          ))}
          <TextField
            label="API key"
            name="api_key"
            type="password"
            autocomplete="off"
            required={preset?.keyNeeded ?? false}
            spellcheck={false}
            value={apiKey}
            onValue={setApiKey}
            error={f.api_key}
            hint={`${preset ? preset.keyHint : "Leave it empty only for a server that checks no key."} Sent once, stored encrypted, never shown again.`}
          />
          <SelectField
            label="Scope"
            name="scope"
            value={scope}
            onValue={(v) => setScope(v as Scope)}
            error={f.scope}
            hint={scopeHint(me, isAdmin, "A team credential serves the team's models.", "Members add personal credentials.")}
            options={[{ value: "user", label: "Personal" }, ...(isAdmin ? [{ value: "team", label: "Team" }] : [])]}
          />
        </div>
        <HeadersEditor rows={headers} onRows={setHeaders} error={f.headers} />
        <div class="actions">
          <button type="submit" class="primary" disabled={form.busy}>
            Add credential
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

function RotateKey({ api, credential, onSaved, onCancel }: FormProps & { credential: Credential }) {
  const [apiKey, setApiKey] = useState("");
  const form = useApiForm();
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  async function submit(e: Event) {
    e.preventDefault();
    const body = { api_key: apiKey };
    setApiKey("");
    let saved: Credential | undefined;
    const ok = await form.run(async () => {
      saved = await answer(
        api.POST("/api/v1/credentials/{credential_id}/rotate", { params: { path: { credential_id: credential.id } }, body }),
      );
    });
    if (ok && saved) onSaved(saved);
  }
  return (
    <section class="panel" aria-labelledby="rotate-form-title">
      <h2 id="rotate-form-title" ref={headingRef} tabIndex={-1}>
        Rotate the key of {credential.name}
      </h2>
      <p>Its models switch to the new key at once. The old key ends in {lastFour(credential)}.</p>
      <ErrorNotice>{form.alert}</ErrorNotice>
      <form ref={form.formRef} onSubmit={submit} noValidate>
        <TextField
          label="New API key"
          name="api_key"
          type="password"
          autocomplete="off"
          required
          spellcheck={false}
          value={apiKey}
          onValue={setApiKey}
          error={form.fields.api_key}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={form.busy}>
            Replace key
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
