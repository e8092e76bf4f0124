// The Models page (docs/dashboard.md#models): the caller's models and the team's,
// added, edited, duplicated, enabled or disabled, deleted and tested. "Test" makes
// one small provider call (POST /models/{id}/test) and shows time to first token and
// tokens per second, or the provider's own error text.
import { useEffect, useRef, useState } from "preact/hooks";
import { answer } from "../api.ts";
import { formatMs, formatNumber, formatUsd } from "../format.ts";
import type { ConfiguredModel, Credential, Model, ModelTest, PageProps } from "../types.ts";
import { useConfirm } from "../ui/confirm.tsx";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { type Column, DataTable } from "../ui/table.tsx";
import type { ModelFormMode } from "./model-draft.ts";
import { ModelForm } from "./model-form.tsx";

interface TestState {
  model: Model;
  result?: ModelTest;
  error?: string;
}

export function ModelsPage({ api, me }: PageProps) {
  const [models, setModels] = useState<Model[] | null>(null);
  const [configured, setConfigured] = useState<Configured | null>(null);
  const [credentials, setCredentials] = useState<Credential[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const [form, setForm] = useState<ModelFormMode | null>(null);
  const [test, setTest] = useState<TestState | null>(null);
  /** Enabled boxes clicked whose change the API has not answered yet. */
  const [pending, setPending] = useState<ReadonlyMap<string, boolean>>(new Map());
  const inFlight = useRef(new Set<string>());
  const [confirmDialog, ask] = useConfirm();
  const addRef = useRef<HTMLButtonElement>(null);
  /** Who adds, tests and duplicates models: a team's users and the single user, not the operator. */
  const runsModels = me.principal !== "operator";
  const isAdmin = me.operator || me.user?.role === "admin";

  async function load() {
    try {
      const [m, c] = await Promise.all([answer(api.GET("/api/v1/models")), answer(api.GET("/api/v1/credentials"))]);
      setModels(m.models);
      setConfigured(m.configured ? { models: m.configured, problems: m.configured_problems ?? [] } : null);
      setCredentials(c.credentials);
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(err));
    }
  }
  useEffect(() => {
    void load();
  }, []);

  const credentialOf = (m: Model) => credentials.find((c) => c.id === m.credential_id);
  const canManage = (m: Model) => me.operator || m.scope === "user" || isAdmin;

  async function act(action: () => Promise<void>) {
    setActionError(null);
    try {
      await action();
    } catch (err) {
      setActionError(errorText(err));
    }
  }

  /**
   * The box shows the click at once (`pending`, so a re-render meanwhile does not put it back); a
   * refused change drops it, so the box shows what is stored again, and says why. One change per
   * model is out at a time: a click meanwhile is ignored (the box is aria-disabled, not disabled, so
   * it keeps focus), else two answers could arrive out of order and show a state that is not stored.
   * `inFlight` is read by the click itself, so two clicks before a re-render are caught too.
   */
  const setEnabled = async (m: Model, enabled: boolean) => {
    if (inFlight.current.has(m.id)) return;
    inFlight.current.add(m.id);
    setPending((old) => new Map(old).set(m.id, enabled));
    setActionError(null);
    try {
      const updated = await answer(api.PATCH("/api/v1/models/{model_id}", { params: { path: { model_id: m.id } }, body: { enabled } }));
      setModels((list) => list?.map((x) => (x.id === m.id ? updated : x)) ?? null);
      setStatus(`${m.name} ${enabled ? "enabled" : "disabled"}.`);
    } catch (err) {
      setStatus("");
      setActionError(`Could not ${enabled ? "enable" : "disable"} ${m.name}: ${errorText(err)}`);
    } finally {
      inFlight.current.delete(m.id);
      setPending((old) => {
        const next = new Map(old);
        next.delete(m.id);
        return next;
      });
    }
  };

  const remove = async (m: Model) => {
    const ok = await ask({
      title: `Delete ${m.name}?`,
      body: <p>Cursor stops listing it and runs can no longer use it. Its usage history stays.</p>,
      confirm: "Delete model",
    });
    if (!ok) return;
    await act(async () => {
      await api.DELETE("/api/v1/models/{model_id}", { params: { path: { model_id: m.id } } });
      setModels((list) => list?.filter((x) => x.id !== m.id) ?? null);
      setStatus(`${m.name} deleted.`);
      addRef.current?.focus();
    });
  };

  const runTest = (m: Model) =>
    act(async () => {
      setTest({ model: m });
      try {
        setTest({ model: m, result: await answer(api.POST("/api/v1/models/{model_id}/test", { params: { path: { model_id: m.id } } })) });
      } catch (err) {
        setTest({ model: m, error: errorText(err) });
      }
    });

  const columns: Column<Model>[] = [
    { header: "Name", cell: (m) => m.name },
    {
      header: "Provider",
      cell: (m) => {
        const c = credentialOf(m);
        return c ? (
          <>
            {c.name}
            <br />
            <span class="muted">{c.provider}</span>
          </>
        ) : (
          <span class="muted">unknown credential</span>
        );
      },
    },
    { header: "Upstream model", cell: (m) => <code>{m.model}</code> },
    { header: "Scope", cell: (m) => (m.scope === "team" ? "Team" : "Personal") },
    {
      header: "Enabled",
      cell: (m) => (
        <input
          type="checkbox"
          checked={pending.get(m.id) ?? m.enabled}
          disabled={!canManage(m)}
          aria-disabled={pending.has(m.id) || undefined}
          aria-label={`${m.name} enabled`}
          onClick={(e) => {
            // Undoes the browser's own toggle of a click that is ignored (no change event follows).
            if (inFlight.current.has(m.id)) e.preventDefault();
          }}
          onChange={(e) => void setEnabled(m, e.currentTarget.checked)}
        />
      ),
    },
    { header: "Context window", numeric: true, cell: (m) => formatNumber(m.context_window) },
    {
      header: "Price in / out (per Mtok)",
      numeric: true,
      cell: (m) => `${formatUsd(m.price_input_per_mtok)} / ${formatUsd(m.price_output_per_mtok)}`,
    },
    {
      header: "Actions",
      cell: (m) => (
        <div class="actions">
          {runsModels && (
            <button
              type="button"
              onClick={() => void runTest(m)}
              aria-label={`Test ${m.name}`}
              disabled={test?.model.id === m.id && !test.result && !test.error}
            >
              Test
            </button>
          )}
          {canManage(m) && (
            <button type="button" onClick={() => setForm({ kind: "edit", model: m })} aria-label={`Edit ${m.name}`}>
              Edit
            </button>
          )}
          {runsModels && (
            <button type="button" onClick={() => setForm({ kind: "duplicate", model: m })} aria-label={`Duplicate ${m.name}`}>
              Duplicate
            </button>
          )}
          {canManage(m) && (
            <button type="button" class="danger" onClick={() => void remove(m)} aria-label={`Delete ${m.name}`}>
              Delete
            </button>
          )}
        </div>
      ),
    },
  ];

  const closeForm = () => {
    setForm(null);
    requestAnimationFrame(() => addRef.current?.focus());
  };

  return (
    <>
      <h1>Models</h1>
      <p class="muted">
        {me.operator
          ? "Every team's models. Models belong to a team's users; the operator can change or delete them, not add or test them."
          : me.principal === "local"
            ? "The models you stored here and those set in BYOK_MODELS. Cursor lists the enabled ones."
            : "Your personal models and your team's. Cursor lists the enabled ones."}
      </p>
      <ErrorNotice>{loadError && `Could not load the models: ${loadError}`}</ErrorNotice>
      <ErrorNotice>{actionError}</ErrorNotice>
      <StatusNotice>{status}</StatusNotice>
      {runsModels && !form && (
        <div class="actions">
          <button type="button" class="primary" ref={addRef} onClick={() => setForm({ kind: "add" })} disabled={models === null}>
            Add a model
          </button>
          {models !== null && credentials.length === 0 && (
            <span class="muted">
              A model runs on a credential: <a href="#/credentials">add a credential</a> first.
            </span>
          )}
        </div>
      )}
      {form && (
        <ModelForm
          api={api}
          me={me}
          mode={form}
          credentials={credentials}
          models={models ?? []}
          onCancel={closeForm}
          onSaved={(saved) => {
            setStatus(`${saved.name} ${form.kind === "edit" ? "saved" : "added"}.`);
            closeForm();
            void load();
          }}
        />
      )}
      <TestResult test={test} />
      {models === null && !loadError ? (
        <p role="status">Loading…</p>
      ) : (
        <DataTable caption="Models" columns={columns} rows={models ?? []} rowKey={(m) => m.id} empty="No models yet." />
      )}
      {configured && (configured.models.length > 0 || configured.problems.length > 0) && <ConfiguredModels configured={configured} />}
      {confirmDialog}
    </>
  );
}

interface Configured {
  models: ConfiguredModel[];
  problems: string[];
}

const CONFIGURED_COLUMNS: Column<ConfiguredModel>[] = [
  { header: "Name", cell: (m) => m.name },
  { header: "Provider", cell: (m) => m.provider },
  { header: "Base URL", cell: (m) => <code>{m.base_url}</code> },
  { header: "Upstream model", cell: (m) => <code>{m.model}</code> },
  { header: "Context window", numeric: true, cell: (m) => formatNumber(m.context_window) },
  { header: "Takes images", cell: (m) => (m.vision ? "yes" : "no") },
  { header: "Code mode", cell: (m) => (m.code_mode ? "yes" : "no") },
];

/** The single user's BYOK_MODELS entries, when it has any: read-only here, changed in .dev.vars (or the secret) and a restart. */
function ConfiguredModels({ configured }: { configured: Configured }) {
  return (
    <section aria-labelledby="configured-models">
      <h2 id="configured-models">From BYOK_MODELS</h2>
      <p class="muted">
        Set in BYOK_MODELS (<code>.dev.vars</code> locally, a secret when deployed): read-only here, always enabled. Change them there and
        restart.
      </p>
      {configured.problems.length > 0 && (
        <div class="notice notice-error">
          <p>Left out of BYOK_MODELS:</p>
          <ul>
            {configured.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      <DataTable
        caption="Models from BYOK_MODELS"
        columns={CONFIGURED_COLUMNS}
        rows={configured.models}
        rowKey={(m) => m.name}
        empty="None is usable."
      />
    </section>
  );
}

/** The last test, in a live region so that its outcome is read out when it arrives. */
function TestResult({ test }: { test: TestState | null }) {
  let content = null;
  if (test && !test.result && !test.error) content = <p>Testing {test.model.name}…</p>;
  else if (test?.error)
    content = (
      <p>
        Could not test {test.model.name}: {test.error}
      </p>
    );
  else if (test?.result?.ok) {
    const r = test.result;
    content = (
      <>
        <h2>{test.model.name} answered</h2>
        <dl class="figures">
          <dt>Time to first token</dt>
          <dd>{formatMs(r.ttft_ms)}</dd>
          <dt>Tokens per second</dt>
          <dd>{formatNumber(r.tokens_per_second, 1)}</dd>
          <dt>Output tokens</dt>
          <dd>{formatNumber(r.output_tokens)}</dd>
          <dt>Whole call</dt>
          <dd>{formatMs(r.duration_ms)}</dd>
        </dl>
      </>
    );
  } else if (test?.result) {
    const e = test.result.error;
    content = (
      <>
        <h2>{test.model.name} failed</h2>
        <p>{e ? `${e.kind}${e.status ? `, HTTP ${e.status}` : ""}` : "The call failed."} The provider said:</p>
        <pre>{e?.message ?? "(nothing)"}</pre>
      </>
    );
  }
  return (
    <div class={content ? "card test-result" : "test-result"} role="status" aria-live="polite" aria-label="Model test">
      {content}
    </div>
  );
}
