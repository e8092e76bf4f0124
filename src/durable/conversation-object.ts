// One Durable Object per (principal, conversation). Thin: it opens storage,
// applies migrations, and hands every call to the session.
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/do/migrations.js";
import type { ModelCatalog } from "../hosting/config/byok-models.ts";
import { runCostUsd } from "../hosting/config/model-prices.ts";
import { modelCatalogFor } from "../hosting/config/principal-models.ts";
import { keyOpeningProvider } from "../hosting/keys/stored-key.ts";
import { searchSettingFromEnv } from "../cursor/search/search-config.ts";
import { createProvider } from "../provider/index.ts";
import type { Provider } from "../provider/types.ts";
import { ConversationStore, type InterruptedRun } from "../cursor/store/conversation-store.ts";
import type { RunRecord } from "../hosting/store/usage-rows.ts";
import { recordRunUsage } from "../hosting/store/usage-rows.ts";
import type { AppEnv } from "../core/env.ts";
import { ConversationSession, type AppendInput, type AppendResult, type RunSummary } from "../cursor/session/session.ts";
import type { Subscription } from "../cursor/session/outbox.ts";
import { errorKind } from "../core/log-safe.ts";
import { limitsFor, type PrincipalLimits } from "../hosting/limits/principal-limits.ts";
import { ConversationCodeMode } from "../cursor/code-mode/conversation-code-mode.ts";
import { LoaderCellRunner } from "../code-mode/engine/loader-runner.ts";
import { CodeModeSession } from "../code-mode/engine/session.ts";
import { CodeModeStore } from "../cursor/store/code-mode-cells.ts";
import type { Usage } from "../provider/types.ts";

/**
 * While a run is live the object keeps an alarm this far ahead, set again each time it
 * fires: after a crash it wakes the object, which finishes the cut-off run without
 * waiting for a visitor (docs/architecture.md#run-recovery).
 */
const RUN_ALARM_MS = 30_000;

export class ConversationObject extends DurableObject<AppEnv> {
  readonly #store: ConversationStore;
  readonly #session: ConversationSession;
  /** Every call names the one principal this object belongs to (its name is scoped by it). */
  #principal = "";
  #teamId: string | null = null;
  /** The hosted user's limits (docs/hosting.md#limits); undefined for "local". */
  #limits: PrincipalLimits | undefined;
  /** The principal's models as of its latest append (hosted users': read from D1, cached per isolate for < 5 s). */
  #catalog: ModelCatalog = { models: [], problems: new Map() };
  #initError: unknown;
  /** Code mode of this object's conversation, made on its first code-mode run (docs/code-mode.md#cursor-runs). */
  #codeMode: ConversationCodeMode | undefined;
  /** The usage records of the runs the constructor found cut off by a restart. */
  #recovered: Promise<void> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    this.#store = new ConversationStore(drizzle(ctx.storage, { logger: false }));
    void ctx.blockConcurrencyWhile(async () => {
      // Errors are kept, not thrown: a throw here would break the input gate.
      try {
        await migrate(this.#store.db, migrations);
        // Whatever was running when the object stopped cannot still be running.
        this.#recovered = this.#settleInterrupted(this.#store.recoverInterruptedRuns());
        ctx.waitUntil(this.#recovered);
      } catch (err) {
        this.#initError = err;
        console.error("byok-edge: conversation storage failed to open:", errorKind(err));
      }
    });
    this.#session = new ConversationSession({
      store: this.#store,
      disconnectGraceMs: Number(env.BYOK_DISCONNECT_GRACE_MS) || 10_000,
      continuationWindowMs: windowMs(env.BYOK_CONTINUATION_WINDOW_MS),
      contextTimeoutMs: Number(env.BYOK_CONTEXT_TIMEOUT_MS) || 30_000,
      catalog: () => this.#catalog,
      search: () => searchSettingFromEnv(env).config,
      provider: (model) =>
        this.#guarded(
          keyOpeningProvider(env, createProvider(model.provider, model.stallTimeoutMs ? { stallTimeoutMs: model.stallTimeoutMs } : {})),
        ),
      admitRun: async (runId, replaces) => this.#limits?.admit(runId, replaces),
      onRunStarted: () => this.#armRecovery(),
      codeMode: (conversationId) => this.#codeModeOf(conversationId),
      onRunFinished: (summary) => {
        if (this.#limits) ctx.waitUntil(this.#limits.release(summary.runId));
        ctx.waitUntil(this.#recordUsage(summary));
      },
    });
  }

  /** The RunSSE body of a request: replay, then live frames, then one end-stream. */
  subscribe(requestId: string): Subscription {
    this.#ready();
    return this.#session.subscribe(requestId);
  }

  /** The edge saw the RunSSE client go away. */
  unsubscribe(requestId: string, subscriptionId: string): void {
    this.#session.unsubscribe(requestId, subscriptionId);
  }

  async append(input: AppendInput): Promise<AppendResult> {
    this.#ready();
    this.#principal = input.principal;
    this.#teamId = input.teamId ?? null;
    this.#limits ??= limitsFor(this.env, { id: this.#principal, teamId: this.#teamId });
    // Before the session sees the append, so planRun reads the principal's models synchronously.
    // Concurrent appends await the same load, so they reach the session in their order.
    const catalog = modelCatalogFor(this.env, { id: input.principal, teamId: this.#teamId });
    this.#catalog = catalog instanceof Promise ? await catalog : catalog;
    return this.#session.append(input);
  }

  /** @internal Bytes of out-of-order and parked appends held now (the tests check they are freed). */
  heldAppendBytes(): number {
    return this.#session.heldAppendBytes();
  }

  /**
   * Recovery without a visitor: a run recorded `running` that no live run owns was cut
   * off by a restart, and is finished like the constructor's recovery finishes it. The
   * alarm is kept while a run is live and cleared when none is.
   */
  override async alarm(): Promise<void> {
    this.#ready();
    await this.#recovered;
    const live = this.#session.liveRunIds();
    await this.#settleInterrupted(this.#store.recoverInterruptedRuns(live));
    if (live.size > 0) await this.ctx.storage.setAlarm(Date.now() + RUN_ALARM_MS);
    else await this.ctx.storage.deleteAlarm();
  }

  #armRecovery(): void {
    this.ctx.storage.setAlarm(Date.now() + RUN_ALARM_MS).catch((err: unknown) => {
      console.error("byok-edge: could not set the run recovery alarm:", errorKind(err));
    });
  }

  /** Interrupted runs end like any run: their usage and provider calls into D1, their concurrency slot freed. */
  async #settleInterrupted(interrupted: InterruptedRun[]): Promise<void> {
    await Promise.all(
      interrupted.map(async (run) => {
        const owner = { id: run.principal, teamId: run.teamId };
        await limitsFor(this.env, owner)?.releaseInterrupted(run.runId);
        let prices: ModelCatalog["prices"];
        try {
          prices = (await modelCatalogFor(this.env, owner)).prices;
        } catch (err) {
          console.error("byok-edge: no prices for an interrupted run", run.runId, errorKind(err));
        }
        await this.#recordRun(run, owner, "failed", run.usage, prices);
      }),
    );
  }

  #codeModeOf(conversationId: string): ConversationCodeMode {
    this.#codeMode ??= new ConversationCodeMode(
      new CodeModeStore(this.#store.db, conversationId),
      ({ values, cellIdPrefix }) =>
        new CodeModeSession({ runner: new LoaderCellRunner(this.env.LOADER), values, limits: {}, cellIdPrefix }),
    );
    return this.#codeMode;
  }

  #guarded(provider: Provider): Provider {
    return this.#limits ? this.#limits.guard(provider) : provider;
  }

  async #recordUsage(summary: RunSummary): Promise<void> {
    const owner = { id: this.#principal, teamId: this.#teamId };
    await this.#recordRun(summary, owner, summary.outcome.status, summary.outcome.usage, this.#catalog.prices);
  }

  async #recordRun(
    run: { runId: string; conversationId: string; model: string },
    owner: { id: string; teamId: string | null },
    status: string,
    usage: Usage,
    prices: ModelCatalog["prices"],
  ): Promise<void> {
    let record: RunRecord | undefined;
    try {
      record = this.#store.runRecord(run.runId);
    } catch (err) {
      console.error("byok-edge: could not read a run's provider calls", run.runId, errorKind(err));
    }
    await recordRunUsage(this.env.DB, {
      principal: owner.id,
      teamId: owner.teamId,
      conversationId: run.conversationId,
      runId: run.runId,
      model: run.model,
      status,
      usage,
      costUsd: runCostUsd(usage, prices?.get(run.model)),
      record,
    });
  }

  /** Checked on every call, outside blockConcurrencyWhile (a throw inside it would break the input gate). */
  #ready(): void {
    // Reset the object so the next request opens storage afresh, instead of serving errors forever.
    if (this.#initError !== undefined) this.ctx.abort("conversation storage failed to open");
  }

  /** Cancels every run and closes every stream with `canceled`. */
  async shutdown(): Promise<void> {
    await this.#session.shutdown();
    await this.#codeMode?.shutdown();
  }
}

/** The continuation window (docs/protocol.md#message-flow): 2 s like Cursor's own backend; "0" turns it off. */
function windowMs(value: string | undefined): number {
  const ms = Number(value);
  return value !== undefined && value !== "" && Number.isFinite(ms) && ms >= 0 ? ms : 2_000;
}
