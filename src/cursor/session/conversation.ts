// One conversation's life around its session: whose it is (the principal's limits and
// models), what its runs spent (usage into D1), runs cut off by a restart, and its code
// mode. The conversation object (src/durable/conversation-object.ts) owns the storage and
// hands every call here (docs/architecture.md#run-recovery).
import type { AppEnv } from "../../core/env.ts";
import { errorKind } from "../../core/log-safe.ts";
import { cellRunnerFor } from "../../code-mode/engine/cell-runners.ts";
import { REQUEST_TTL_MS } from "./request-lifecycle.ts";
import { CodeModeSession } from "../../code-mode/engine/session.ts";
import type { ModelCatalog } from "../../hosting/config/byok-models.ts";
import { runCostUsd } from "../../hosting/config/model-prices.ts";
import { modelCatalogFor } from "../../hosting/config/principal-models.ts";
import { keyOpeningProvider, withPersonalKey } from "../../hosting/keys/stored-key.ts";
import { keyRoutingFor } from "../../hosting/keys/key-routing.ts";
import { LOCAL_TEAM_ID } from "../../hosting/store/local-account.ts";
import { telemetryTargetsFor } from "../../hosting/config/telemetry-targets.ts";
import type { OtlpTarget } from "../../telemetry/otlp-export.ts";
import { finishRunTrace, logRunEnd, startRunTrace } from "./run-telemetry.ts";
import { type PersonalKey, personalKeyOf } from "../../hosting/keys/personal-key.ts";
import { limitsFor, type PrincipalLimits } from "../../hosting/limits/principal-limits.ts";
import { type RunRecord, recordActiveRun, recordRunUsage } from "../../hosting/store/usage-rows.ts";
import { createProvider } from "../../provider/index.ts";
import type { Provider, Usage } from "../../provider/types.ts";
import { ConversationCodeMode } from "../code-mode/conversation-code-mode.ts";
import { searchSettingFromEnv } from "../search/search-config.ts";
import { CodeModeStore } from "../store/code-mode-cells.ts";
import type { ConversationStore, InterruptedRun } from "../store/conversation-store.ts";
import type { Subscription } from "./outbox.ts";
import { type AppendInput, type AppendResult, ConversationSession, type RunSummary } from "./session.ts";

/**
 * While a run is live the object keeps an alarm this far ahead, set again each time it
 * fires: after a crash it wakes the object, which finishes the cut-off run without
 * waiting for a visitor (docs/architecture.md#run-recovery).
 */
const RUN_ALARM_MS = 30_000;

/** What the conversation needs of its Durable Object. */
export interface ConversationHost {
  /** Keeps the object alive for work after a response (usage records, recovery). */
  waitUntil(promise: Promise<unknown>): void;
  /** Sets the object's alarm at `atMs`, or clears it with null. */
  setAlarm(atMs: number | null): Promise<void>;
}

export class Conversation {
  readonly #env: AppEnv;
  readonly #store: ConversationStore;
  readonly #host: ConversationHost;
  readonly #session: ConversationSession;
  /** Every call names the one principal this object belongs to (its name is scoped by it). */
  #principal = "";
  #teamId: string | null = null;
  /** The hosted user's limits (docs/hosting.md#limits); undefined for "local". */
  #limits: PrincipalLimits | undefined;
  /** The principal's models as of its latest append (hosted users': read from D1, cached per isolate for < 5 s). */
  #catalog: ModelCatalog = { models: [], problems: new Map() };
  /** Where its runs' traces go, as of its latest append (docs/telemetry.md#export): read with the models. */
  #targets: OtlpTarget[] = [];
  /** Code mode of this conversation, made on its first code-mode run (docs/code-mode.md#cursor-runs). */
  #codeMode: ConversationCodeMode | undefined;
  /** The appends still being prepared, in their order of arrival. */
  #appends: Promise<void> = Promise.resolve();
  /** The usage records of the runs found cut off by a restart when the object started. */
  #recovered: Promise<void> = Promise.resolve();

  constructor(env: AppEnv, store: ConversationStore, host: ConversationHost) {
    this.#env = env;
    this.#store = store;
    this.#host = host;
    this.#session = new ConversationSession({
      store,
      disconnectGraceMs: Number(env.BYOK_DISCONNECT_GRACE_MS) || 10_000,
      continuationWindowMs: windowMs(env.BYOK_CONTINUATION_WINDOW_MS),
      contextTimeoutMs: Number(env.BYOK_CONTEXT_TIMEOUT_MS) || 30_000,
      compactionTimeoutMs: Number(env.BYOK_COMPACTION_TIMEOUT_MS) || 120_000,
      requestTtlMs: Number(env.BYOK_REQUEST_TTL_MS) || REQUEST_TTL_MS,
      // Both are read again at the next append; an idle object need not keep them.
      onIdle: () => {
        this.#catalog = { models: [], problems: new Map() };
        this.#limits = undefined;
      },
      catalog: () => this.#catalog,
      search: () => searchSettingFromEnv(env).config,
      provider: (model) =>
        this.#guarded(
          keyOpeningProvider(env, createProvider(model.provider, model.stallTimeoutMs ? { stallTimeoutMs: model.stallTimeoutMs } : {})),
        ),
      keys: keyRoutingFor(
        env,
        () => this.#teamId ?? LOCAL_TEAM_ID,
        (promise) => host.waitUntil(promise),
      ),
      startTrace: (runId, plan) => startRunTrace(runId, plan, this.#targets),
      admitRun: async (runId, replaces) => this.#limits?.admit(runId, replaces),
      onRunStarted: (runId, plan) => {
        this.#armRecovery();
        host.waitUntil(
          recordActiveRun(env, {
            runId,
            principal: plan.principal,
            teamId: plan.teamId,
            model: plan.model.name,
            provider: plan.model.provider,
          }),
        );
      },
      codeMode: (conversationId) => this.#codeModeOf(conversationId),
      onRunFinished: (summary) => {
        if (this.#limits) host.waitUntil(this.#limits.release(summary.runId));
        host.waitUntil(this.#recordUsage(summary));
        if (summary.trace) host.waitUntil(finishRunTrace(summary, this.#targets));
      },
    });
  }

  /** Once the storage is open: whatever was running when the object stopped cannot still be running. */
  recover(): void {
    this.#recovered = this.#settleInterrupted(this.#store.recoverInterruptedRuns());
    this.#host.waitUntil(this.#recovered);
  }

  /** The RunSSE body of a request: replay, then live frames, then one end-stream. */
  subscribe(requestId: string): Subscription {
    return this.#session.subscribe(requestId);
  }

  /** The edge saw the RunSSE client go away. */
  unsubscribe(requestId: string, subscriptionId: string): void {
    this.#session.unsubscribe(requestId, subscriptionId);
  }

  append(input: AppendInput): Promise<AppendResult> {
    this.#principal = input.principal;
    this.#teamId = input.teamId ?? null;
    this.#limits ??= limitsFor(this.#env, { id: this.#principal, teamId: this.#teamId });
    // The principal's models and the append's personal key are loaded before the session sees
    // the append, so planRun reads them synchronously; the queue keeps appends in their order of
    // arrival while one of them imports a key.
    const key = personalKeyFrom(input);
    const ready = Promise.all([
      modelCatalogFor(this.#env, { id: input.principal, teamId: this.#teamId }),
      key,
      telemetryTargetsFor(this.#env, this.#teamId),
    ]);
    ready.catch(() => undefined); // handled where it is awaited, in its turn
    const appended = this.#appends.then(async () => {
      const [catalog, personalKey, targets] = await ready;
      this.#catalog = withPersonalKey(catalog, personalKey);
      this.#targets = targets;
      return this.#session.append(input);
    });
    this.#appends = appended.then(
      () => undefined,
      () => undefined,
    );
    return appended;
  }

  heldAppendBytes(): number {
    return this.#session.heldAppendBytes();
  }

  /**
   * Recovery without a visitor: a run recorded `running` that no live run owns was cut off
   * by a restart, and is finished as at start. The alarm is kept while a run is live.
   */
  async onAlarm(): Promise<void> {
    await this.#recovered;
    const live = this.#session.liveRunIds();
    await this.#settleInterrupted(this.#store.recoverInterruptedRuns(live));
    await this.#host.setAlarm(live.size > 0 ? Date.now() + RUN_ALARM_MS : null);
  }

  /** Cancels every run and closes every stream with `canceled`. */
  async shutdown(): Promise<void> {
    await this.#session.shutdown();
    await this.#codeMode?.shutdown();
  }

  #armRecovery(): void {
    this.#host.setAlarm(Date.now() + RUN_ALARM_MS).catch((err: unknown) => {
      console.error("byok-edge: could not set the run recovery alarm:", errorKind(err));
    });
  }

  /** Interrupted runs end like any run (failed, or completed when their answer was stored): usage and provider calls into D1, their concurrency slot freed. */
  async #settleInterrupted(interrupted: InterruptedRun[]): Promise<void> {
    await Promise.all(
      interrupted.map(async (run) => {
        const owner = { id: run.principal, teamId: run.teamId };
        await limitsFor(this.#env, owner)?.releaseInterrupted(run.runId);
        let prices: ModelCatalog["prices"];
        try {
          prices = (await modelCatalogFor(this.#env, owner)).prices;
        } catch (err) {
          console.error("byok-edge: no prices for an interrupted run", run.runId, errorKind(err));
        }
        await this.#recordRun(run, owner, run.status, run.usage, prices);
      }),
    );
  }

  #codeModeOf(conversationId: string): ConversationCodeMode {
    this.#codeMode ??= new ConversationCodeMode(
      new CodeModeStore(this.#store.db, conversationId),
      ({ values, cellIdPrefix }) => new CodeModeSession({ runner: cellRunnerFor(this.#env), values, limits: {}, cellIdPrefix }),
    );
    return this.#codeMode;
  }

  #guarded(provider: Provider): Provider {
    return this.#limits ? this.#limits.guard(provider) : provider;
  }

  async #recordUsage(summary: RunSummary): Promise<void> {
    const owner = { id: this.#principal, teamId: this.#teamId };
    await this.#recordRun(summary, owner, summary.outcome.status, summary.outcome.usage, this.#catalog.prices, summary.trace?.traceId);
  }

  async #recordRun(
    run: { runId: string; conversationId: string; model: string },
    owner: { id: string; teamId: string | null },
    status: string,
    usage: Usage,
    prices: ModelCatalog["prices"],
    traceId?: string,
  ): Promise<void> {
    let record: RunRecord | undefined;
    try {
      record = this.#store.runRecord(run.runId);
    } catch (err) {
      console.error("byok-edge: could not read a run's provider calls", run.runId, errorKind(err));
    }
    logRunEnd({ ...run, owner, status, usage, record, traceId });
    await recordRunUsage(this.#env.DB, {
      principal: owner.id,
      teamId: owner.teamId,
      conversationId: run.conversationId,
      runId: run.runId,
      model: run.model,
      status,
      usage,
      costOf: (model, share) => runCostUsd(share, prices?.get(model)),
      record,
    });
  }
}

/** The append's personal key as a key that cannot be read back; its bytes are zeroed here. */
async function personalKeyFrom(input: AppendInput): Promise<PersonalKey | undefined> {
  const raw = input.personalKey;
  if (!raw) return undefined;
  delete input.personalKey;
  try {
    return await personalKeyOf(raw);
  } finally {
    raw.fill(0);
  }
}

/** The continuation window (docs/protocol.md#message-flow): 2 s like Cursor's own backend; "0" turns it off. */
function windowMs(value: string | undefined): number {
  const ms = Number(value);
  return value !== undefined && value !== "" && Number.isFinite(ms) && ms >= 0 ? ms : 2_000;
}
