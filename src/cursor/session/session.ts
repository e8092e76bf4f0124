// The live session of one conversation: its requests and its one active run.
// Each request's state changes only in request-lifecycle.ts; this file feeds it
// events and carries out the effects it returns (streams, runs, timers).
import type { KeyRouting } from "../../provider/model-keys.ts";
import type { RunTrace } from "../../telemetry/run-trace.ts";
import type { AgentClientMessage, AgentRunRequest, AgentServerMessage, ConversationAction } from "../../proto/gen/agent/v1/agent_pb.ts";
import type { Injection } from "../agent/run-control.ts";
import { runAgent } from "../agent/run.ts";
import { settleRun, type RunOutcome, type SettleDeps } from "../agent/settle.ts";
import type { RequestIds } from "../agent/request-channel.ts";
import type { ConversationCodeMode } from "../code-mode/conversation-code-mode.ts";
import { decodeClientMessage, HEARTBEAT_FRAME, serverFrame } from "../../proto/frames.ts";
import { AppError } from "../../core/errors.ts";
import { toHex } from "../../core/bytes.ts";
import { errorKind } from "../../core/log-safe.ts";
import { RUN_CANCELLED } from "../agent/run-errors.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import type { ModelCatalog } from "../../hosting/config/byok-models.ts";
import { emptyUsage, type ModelConfig, type Provider } from "../../provider/types.ts";
import type { SearchConfig } from "../search/search-types.ts";
import { ActiveRun } from "./active-run.ts";
import { applyRuntimeAction } from "./runtime-actions.ts";
import { planContinuation, planRun, type RunPlan } from "./run-request.ts";
import { RunHandle } from "./run-handle.ts";
import { Outbox, type Subscription } from "./outbox.ts";
import {
  type AppendStatus,
  expiresAtMs,
  heldBytes,
  initialState,
  reduce,
  type RequestEffect,
  type RequestEvent,
  type RequestState,
  restoredState,
  type Transition,
} from "./request-lifecycle.ts";

/** A quiet running turn sends a heartbeat this often so proxies keep the stream open. */
const IDLE_HEARTBEAT_MS = 5_000;
/** How often quiet streams are checked; a fraction of the heartbeat so none is late by a whole period. */
const HEARTBEAT_TICK_MS = 1_000;

export interface SessionDeps {
  store: ConversationStore;
  /** How long a running turn may have no RunSSE subscriber before it is cancelled. */
  disconnectGraceMs: number;
  /** How long a completed turn's stream stays open for a runtime user message to continue it (0: off). */
  continuationWindowMs: number;
  /** How long a run waits for each answer of the client about its request context. */
  contextTimeoutMs: number;
  /** How long a compaction's summary call may take before its fallback (docs/protocol.md#compaction). */
  compactionTimeoutMs: number;
  catalog: () => ModelCatalog;
  /** The web search backend, if one is configured. */
  search: () => SearchConfig | undefined;
  provider: (model: ModelConfig) => Provider;
  /** The team's key pools, for models with several keys (docs/providers.md#keys-behind-one-model). */
  keys?: KeyRouting;
  /** A run's trace when its spans have somewhere to go (docs/telemetry.md#traces); undefined: none is recorded. */
  startTrace?: (runId: string, plan: RunPlan) => RunTrace | undefined;
  /** Admits a run before it starts (limits, docs/hosting.md#limits); a refusal ends the run with its error. */
  admitRun?: (runId: string, replaces: string | undefined) => Promise<void>;
  /** Called when a run has been recorded `running` (the object arms its recovery alarm). */
  onRunStarted?: (runId: string, plan: RunPlan) => void;
  /** Called once per finished run (usage accounting); failures are the callee's. */
  onRunFinished: (summary: RunSummary) => void;
  /** The conversation's code mode, made on first use (docs/code-mode.md#cursor-runs). */
  codeMode?: (conversationId: string) => ConversationCodeMode;
  /** How long an ended request keeps its frames for a reconnecting RunSSE, and a request waits for its run_request. */
  requestTtlMs: number;
  /** No request is left and no run is live: the object may drop what it caches. */
  onIdle?: () => void;
}

export interface RunSummary {
  runId: string;
  requestId: string;
  conversationId: string;
  model: string;
  outcome: RunOutcome;
  /** Its trace, still open at its run span, for the conversation to finish and export. */
  trace?: RunTrace;
}

export interface AppendInput {
  principal: string;
  /** The principal's team (hosted users), for usage records. */
  teamId?: string;
  conversationId: string;
  requestId: string;
  seqno: number;
  /** Serialized AgentClientMessage (the worker has validated it). */
  message: Uint8Array;
  /** Set for a subagent's request (both x-parent-* headers). */
  parent?: { requestId: string; toolCallId: string };
  /**
   * The personal key the append's own token opened (docs/keys-at-rest.md#personal-keys): held in
   * memory by the runs this append plans, never stored.
   */
  personalKey?: Uint8Array;
}

export type AppendResult = { status: AppendStatus };

/** One request id: its state (owned by the reducer) and what the session keeps for it. */
interface RequestSlot {
  readonly requestId: string;
  state: RequestState;
  /** The current stream; a reused request id gets a new one. */
  outbox: Outbox;
  /** The request's exec/KV id space, continued by every run on it. */
  readonly ids: RequestIds;
  readonly rejectedInjections: Set<string>;
  /** The timers the reducer arms; it tells stale firings apart by state, so one of each kind suffices. */
  readonly timers: Map<"grace" | "continuation", ReturnType<typeof setTimeout>>;
  /** The plan of the request's latest run: a continuation runs on it with its own message. */
  lastPlan: RunPlan | undefined;
}

type Event = RequestEvent<RunPlan>;
type Effect = RequestEffect<RunPlan>;

export class ConversationSession {
  readonly #requests = new Map<string, RequestSlot>();
  readonly #active = new ActiveRun<RunHandle>();
  /** Runtime input that arrived after its run stopped taking input; the next run starts with it. */
  #queuedForNextRun: Injection[] = [];
  readonly #runs = new Set<Promise<void>>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  /** When the next request expires: an idle object lets go of old frames on time, not only at its next request. */
  #sweep: { atMs: number; timer: ReturnType<typeof setTimeout> } | undefined;

  constructor(readonly deps: SessionDeps) {}

  subscribe(requestId: string): Subscription {
    const slot = this.#requests.get(requestId) ?? this.#restoredOrNew(requestId);
    const subscription = slot.outbox.subscribe();
    this.#dispatch(slot, { kind: "subscribed" });
    return subscription;
  }

  unsubscribe(requestId: string, subscriptionId: string): void {
    this.#requests.get(requestId)?.outbox.unsubscribe(subscriptionId);
  }

  append(input: AppendInput): AppendResult {
    const message = decodeClientMessage(input.message);
    const slot = this.#requests.get(input.requestId) ?? this.#newSlot(input.requestId);
    const heldElsewhere = this.heldAppendBytes() - heldBytes(slot.state);
    const status = this.#dispatch(slot, { kind: "append", seqno: input.seqno, bytes: input.message, message, heldElsewhere }, input);
    return { status: status ?? "accepted" }; // every append transition sets a status
  }

  /** Bytes of appends held by all requests (waiting for a gap, or parked): capped per object (docs/protocol.md#limits). */
  heldAppendBytes(): number {
    let total = 0;
    for (const slot of this.#requests.values()) total += heldBytes(slot.state);
    return total;
  }

  /** The runs this life of the object is running: a run recorded `running` and not here was cut off by a restart. */
  liveRunIds(): Set<string> {
    const id = this.#active.activeId();
    return new Set(id === undefined ? [] : [id]);
  }

  /** Cancels the active run and closes every stream with `canceled` (deploy, eviction, tests). */
  async shutdown(): Promise<void> {
    this.#active.shutdown();
    for (const slot of this.#requests.values()) this.#dispatch(slot, { kind: "shutdown" });
    if (this.#heartbeat !== undefined) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
    await Promise.allSettled([...this.#runs]);
  }

  /** Runs the reducer and carries out its effects in order; returns an append's status. */
  #dispatch(slot: RequestSlot, event: Event, input?: AppendInput): AppendStatus | undefined {
    return this.#commit(slot, reduce(slot.state, event, Date.now()), input);
  }

  /** The only place a request's state is replaced. */
  #commit(slot: RequestSlot, transition: Transition<RunPlan>, input: AppendInput | undefined): AppendStatus | undefined {
    slot.state = transition.state;
    for (const effect of transition.effects) this.#apply(slot, effect, input);
    this.#scheduleSweep();
    return transition.status;
  }

  /** Arms one timer for the earliest expiry of an ended or waiting request (docs/protocol.md#limits). */
  #scheduleSweep(): void {
    let atMs = Number.POSITIVE_INFINITY;
    for (const slot of this.#requests.values()) {
      const expires = expiresAtMs(slot.state, this.deps.requestTtlMs);
      if (expires !== undefined) atMs = Math.min(atMs, expires + 1);
    }
    if (this.#sweep !== undefined && this.#sweep.atMs <= atMs) return;
    if (this.#sweep !== undefined) clearTimeout(this.#sweep.timer);
    this.#sweep = undefined;
    if (atMs === Number.POSITIVE_INFINITY) return;
    const timer = setTimeout(
      () => {
        this.#sweep = undefined;
        this.#expireOld();
        this.#scheduleSweep();
        if (this.#requests.size === 0 && this.#runs.size === 0) this.deps.onIdle?.();
      },
      Math.max(0, atMs - Date.now()),
    );
    this.#sweep = { atMs, timer };
  }

  #apply(slot: RequestSlot, effect: Effect, input: AppendInput | undefined): void {
    switch (effect.kind) {
      case "heartbeat":
        slot.outbox.pushTransient(HEARTBEAT_FRAME);
        if (slot.state.kind === "running") this.#active.get(slot.state.runId)?.channel.clientAlive();
        return;
      case "release":
        for (const message of effect.items) this.#released(slot, message, input);
        return;
      case "open-stream":
        slot.outbox = this.#outbox(slot);
        slot.rejectedInjections.clear(); // a new stream rejects a stale injection id again
        return;
      case "start-run":
        this.#startRun(slot, effect.runId, effect.plan);
        return;
      case "cancel-run":
        this.#active.get(effect.runId)?.cancel(effect.reason);
        return;
      case "deliver":
        this.#deliver(effect.runId, effect.message);
        return;
      case "runtime-action": {
        const run = effect.runId === null ? undefined : this.#active.get(effect.runId);
        applyRuntimeAction(
          {
            run,
            requestId: slot.requestId,
            rejectedInjections: slot.rejectedInjections,
            emit: (message) => slot.outbox.push(serverFrame(message)),
            queueForNextRun: (injection) => this.#queuedForNextRun.push(injection),
          },
          effect.action,
        );
        return;
      }
      case "drop-finished":
        slot.outbox.dropFinished();
        return;
      case "end-stream":
        slot.outbox.end(effect.error);
        return;
      case "arm-grace":
        this.#arm(slot, "grace", this.deps.disconnectGraceMs, () => ({ kind: "grace-expired", subscribers: slot.outbox.subscriberCount }));
        return;
      case "arm-continuation":
        this.#arm(slot, "continuation", this.deps.continuationWindowMs, () => ({ kind: "continuation-expired" }));
        return;
      case "disarm-grace":
        this.#disarm(slot, "grace");
        return;
      case "disarm-continuation":
        this.#disarm(slot, "continuation");
        return;
      case "continue":
        this.#continue(slot, effect.action);
        return;
      case "forget":
        this.#requests.delete(slot.requestId);
        return;
    }
  }

  #arm(slot: RequestSlot, timer: "grace" | "continuation", ms: number, event: () => Event): void {
    this.#disarm(slot, timer);
    slot.timers.set(
      timer,
      setTimeout(() => {
        slot.timers.delete(timer);
        this.#dispatch(slot, event());
      }, ms),
    );
  }

  #disarm(slot: RequestSlot, timer: "grace" | "continuation"): void {
    const handle = slot.timers.get(timer);
    if (handle !== undefined) clearTimeout(handle);
    slot.timers.delete(timer);
  }

  /** A runtime user message in the continuation window: the next turn, on the latest run's plan. */
  #continue(slot: RequestSlot, action: ConversationAction): void {
    if (!slot.lastPlan) return;
    const planned = planContinuation(slot.lastPlan, action, this.deps.catalog());
    const runId = newRunId(slot.requestId);
    this.#dispatch(slot, { kind: "run-requested", runId, planned, subscribers: slot.outbox.subscriberCount, continuation: true });
  }

  /** A message left the inbox: a run_request is planned first, everything else goes straight in. */
  #released(slot: RequestSlot, message: AgentClientMessage, input: AppendInput | undefined): void {
    if (message.message.case !== "runRequest" || !input) {
      this.#dispatch(slot, { kind: "client-message", message }, input);
      return;
    }
    const planned = this.#plan(message.message.value, input);
    const runId = newRunId(input.requestId);
    this.#dispatch(slot, { kind: "run-requested", runId, planned, subscribers: slot.outbox.subscriberCount }, input);
  }

  #plan(request: AgentRunRequest, input: AppendInput) {
    const context = {
      principal: input.principal,
      teamId: input.teamId ?? null,
      requestId: input.requestId,
      conversationId: input.conversationId,
      isSubagent: input.parent !== undefined,
      ...(input.parent && { parent: input.parent }),
    };
    return planRun(request, context, this.deps.catalog(), this.deps.store, this.deps.search());
  }

  #startRun(slot: RequestSlot, runId: string, plan: RunPlan): void {
    slot.lastPlan = plan;
    const outbox = slot.outbox;
    const emit = (message: AgentServerMessage) => outbox.push(serverFrame(message), message.message.case === "kvServerMessage");
    const run = new RunHandle(runId, slot.ids, emit);
    this.deps.store.ensureConversation(plan.conversationId, plan.principal);
    this.deps.store.claimRun({
      runId,
      conversationId: plan.conversationId,
      requestId: plan.requestId,
      model: plan.model.name,
      teamId: plan.teamId,
    });
    const replaces = this.#active.activeId();
    // One active run per conversation: a newer run replaces the older one.
    this.#active.activate(run);
    this.deps.onRunStarted?.(runId, plan);
    this.#ensureHeartbeat();
    const trace = this.deps.startTrace?.(runId, plan);
    const deps = {
      ...(trace && { trace: trace.root }),
      store: this.deps.store,
      provider: this.deps.provider(plan.model),
      providerFor: this.deps.provider,
      ...(this.deps.keys && { keys: this.deps.keys }),
      channel: run.channel,
      emit,
      ...(this.deps.codeMode && plan.model.codeMode && { codeMode: this.deps.codeMode(plan.conversationId) }),
    };
    const input = {
      ...plan,
      runId,
      signal: run.signal,
      control: run.control,
      contextTimeoutMs: this.deps.contextTimeoutMs,
      compactionTimeoutMs: this.deps.compactionTimeoutMs,
      // A summary run takes no new input; queued messages wait for the next turn.
      queued: plan.action.kind === "summarize" ? [] : this.#queuedForNextRun.splice(0),
    };
    const admitted = this.deps.admitRun?.(runId, replaces) ?? Promise.resolve();
    const done = admitted
      .then(
        () => runAgent(deps, input),
        (err: unknown) => this.#refused(deps, run, plan, err, input.queued),
      )
      .catch((err: unknown) => this.#crashed(deps, run, plan, err))
      .then((outcome) => this.#finished(slot, runId, plan, outcome, trace));
    this.#runs.add(done);
    void done.finally(() => this.#runs.delete(done));
  }

  /** A run its limits refused ends at once with their error; the input it took waits for the next run. */
  #refused(deps: SettleDeps, run: RunHandle, plan: RunPlan, err: unknown, queued: Injection[]): RunOutcome {
    this.#queuedForNextRun.unshift(...queued);
    return settleRun(deps, { runId: run.runId, modelName: plan.model.name, signal: run.signal }, { kind: "threw", error: err });
  }

  /** runAgent settles every failure itself; this guards against a bug past it, so the stream still ends. */
  #crashed(deps: SettleDeps, run: RunHandle, plan: RunPlan, err: unknown): RunOutcome {
    console.error("byok-edge: run crashed", run.runId, errorKind(err));
    const error = new AppError("internal", "internal error");
    try {
      return settleRun(deps, { runId: run.runId, modelName: plan.model.name, signal: run.signal }, { kind: "threw", error });
    } catch {
      // Settling failed too (storage): the run's row stays as it is, the stream still ends.
      return { status: "failed", usage: emptyUsage(), error };
    }
  }

  #finished(slot: RequestSlot, runId: string, plan: RunPlan, outcome: RunOutcome, trace: RunTrace | undefined): void {
    const error = outcome.status === "completed" ? undefined : outcome.status === "cancelled" ? RUN_CANCELLED() : outcome.error;
    this.#dispatch(slot, { kind: "run-finished", runId, error, continuable: this.deps.continuationWindowMs > 0 });
    this.#active.release(runId);
    // An idle object keeps no copy of its history (docs/architecture.md#history-in-memory).
    this.deps.store.releaseHistory(plan.conversationId);
    this.deps.onRunFinished({
      runId,
      requestId: plan.requestId,
      conversationId: plan.conversationId,
      model: plan.model.name,
      outcome,
      ...(trace && { trace }),
    });
  }

  #deliver(runId: string, message: AgentClientMessage): void {
    const channel = this.#active.get(runId)?.channel;
    if (!channel) return;
    switch (message.message.case) {
      case "execClientMessage":
        channel.deliverExec(message.message.value);
        return;
      case "execClientControlMessage":
        channel.deliverControl(message.message.value);
        return;
      case "kvClientMessage":
        channel.deliverKv(message.message.value);
        return;
      case "interactionResponse":
        channel.deliverInteraction(message.message.value);
        return;
      default:
        return;
    }
  }

  #newSlot(requestId: string): RequestSlot {
    this.#expireOld();
    const slot: RequestSlot = {
      requestId,
      state: initialState(Date.now()),
      outbox: new Outbox(),
      ids: { nextId: 1, nextKvId: 0 },
      rejectedInjections: new Set(),
      timers: new Map(),
      lastPlan: undefined,
    };
    slot.outbox = this.#outbox(slot);
    this.#requests.set(requestId, slot);
    return slot;
  }

  /** A request this object does not know: if its run ended in an earlier life of the object, say how. */
  #restoredOrNew(requestId: string): RequestSlot {
    const slot = this.#newSlot(requestId);
    const stored = this.deps.store.latestRunOfRequest(requestId);
    if (stored && stored.status !== "running") {
      this.#commit(slot, restoredState(Date.now(), storedEnd(stored.status, stored.failureCode)), undefined);
    }
    return slot;
  }

  /** A stream whose subscribers leaving is reported to the reducer (only while it is the current one). */
  #outbox(slot: RequestSlot): Outbox {
    const outbox: Outbox = new Outbox((remaining) => {
      if (slot.outbox === outbox) this.#dispatch(slot, { kind: "detached", remaining });
    });
    return outbox;
  }

  /** Forgets requests that ended (or never started) long ago, so the object's memory stays bounded. */
  #expireOld(): void {
    for (const slot of [...this.#requests.values()]) this.#dispatch(slot, { kind: "expire", ttlMs: this.deps.requestTtlMs });
  }

  /** One interval for the whole object; it stops itself when nothing is running. */
  #ensureHeartbeat(): void {
    if (this.#heartbeat !== undefined) return;
    this.#heartbeat = setInterval(() => {
      let running = 0;
      for (const slot of this.#requests.values()) {
        if (slot.state.kind !== "running") continue;
        running += 1;
        if (slot.outbox.idleMs() >= IDLE_HEARTBEAT_MS) slot.outbox.pushTransient(HEARTBEAT_FRAME);
      }
      if (running === 0 && this.#heartbeat !== undefined) {
        clearInterval(this.#heartbeat);
        this.#heartbeat = undefined;
      }
    }, HEARTBEAT_TICK_MS);
  }
}

/** `<request_id>:<8 hex>`, new for every run (docs/protocol.md#identities). */
function newRunId(requestId: string): string {
  return `${requestId}:${toHex(crypto.getRandomValues(new Uint8Array(4)))}`;
}

/** How a run that ended in an earlier life of this object ends its stream now. */
function storedEnd(status: string, failureCode: string | null): AppError | undefined {
  if (status === "completed") return undefined;
  if (status === "cancelled") return RUN_CANCELLED();
  if (failureCode === "aborted") return new AppError("unavailable", "the run was interrupted by a server restart; send the message again");
  return new AppError("unavailable", "the run failed; send the message again");
}
