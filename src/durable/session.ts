// The live session of one conversation: its requests (transports) and its one
// active run. Appends arrive here in any order and leave the inbox in seqno
// order; runs report their outcome here, and this is the one place that ends
// a request's stream.
import type { AgentClientMessage, AgentRunRequest, AgentServerMessage, ConversationAction } from "../proto/gen/agent/v1/agent_pb.ts";
import type { Injection } from "../agent/run-control.ts";
import { RunRegistry } from "./run-registry.ts";
import { applyRuntimeAction } from "./runtime-actions.ts";
import { runAgent, type RunOutcome } from "../agent/run.ts";
import { clientState, runAction } from "./run-request.ts";
import { subagentModelResolver } from "../agent/subagent-model.ts";
import { AGENT_TOOLS, SUBAGENT_TOOLS } from "../agent/tools/index.ts";
import { decodeClientMessage, HEARTBEAT_FRAME, serverFrame } from "../proto/frames.ts";
import { AppError } from "../proto/connect/error.ts";
import { encodeEndStream } from "../proto/connect/end-stream.ts";
import { errorKind } from "../proto/connect/log-safe.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import type { ModelCatalog } from "../config/models.ts";
import { applyParameters, parseVariant } from "../config/model-parameters.ts";
import type { ModelConfig, Provider } from "../provider/types.ts";
import { RUN_CANCELLED } from "../agent/errors.ts";
import { Transport } from "./transport.ts";
import { INBOX_MAX_BUFFERED } from "./inbox.ts";
import type { Subscription } from "./outbox.ts";
import { RunHandle } from "./run-handle.ts";

/** A quiet running turn sends a heartbeat this often so proxies keep the stream open. */
export const IDLE_HEARTBEAT_MS = 5_000;
/** How often quiet streams are checked; a fraction of the heartbeat so none is late by a whole period. */
const HEARTBEAT_TICK_MS = 1_000;
/** Ended requests stay replayable this long after their end (pruned when new requests arrive). */
const ENDED_TRANSPORT_TTL_MS = 10 * 60 * 1000;

export interface SessionDeps {
  store: ConversationStore;
  /** How long a running turn may have no RunSSE subscriber before it is cancelled. */
  disconnectGraceMs: number;
  catalog: () => ModelCatalog;
  provider: (model: ModelConfig) => Provider;
  /** Called once per finished run (usage accounting); failures are the callee's. */
  onRunFinished: (summary: RunSummary) => void;
}

export interface RunSummary {
  runId: string;
  conversationId: string;
  model: string;
  outcome: RunOutcome;
}

export interface AppendInput {
  principal: string;
  conversationId: string;
  requestId: string;
  seqno: number;
  /** Serialized AgentClientMessage (the worker has validated it). */
  message: Uint8Array;
  /** Set for a subagent's request (both x-parent-* headers). */
  parent?: { requestId: string; toolCallId: string };
}

export type AppendResult =
  | { status: "accepted" }
  | { status: "buffered" }
  | { status: "duplicate" }
  | { status: "stale" }
  | { status: "overflow" };

export class ConversationSession {
  readonly #transports = new Map<string, Transport>();
  readonly #registry = new RunRegistry<RunHandle>();
  /** Runtime input that arrived after its run stopped taking input; the next run starts with it. */
  #queuedForNextRun: Injection[] = [];
  readonly #runs = new Set<Promise<void>>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(readonly deps: SessionDeps) {}

  subscribe(requestId: string): Subscription {
    const known = this.#transports.get(requestId);
    if (!known) {
      // This object restarted since the request's run began: say so instead of waiting forever.
      const run = this.deps.store.latestRunOfRequest(requestId);
      if (run && run.status !== "running") return { id: "", stream: endedStream(run.status, run.failureCode) };
    }
    const transport = known ?? this.#transport(requestId);
    if (transport.graceTimer !== undefined) {
      clearTimeout(transport.graceTimer);
      transport.graceTimer = undefined;
    }
    return transport.outbox.subscribe();
  }

  unsubscribe(requestId: string, subscriptionId: string): void {
    this.#transports.get(requestId)?.outbox.unsubscribe(subscriptionId);
  }

  append(input: AppendInput): AppendResult {
    const message = decodeClientMessage(input.message);
    let transport = this.#transport(input.requestId);
    if (isRestart(transport, input)) {
      // Cursor reused a finished request id and numbers from 0 again: a new stream and
      // seqno order, the same id space (exec ids are never reused on a request).
      const previous = transport;
      transport = new Transport(input.requestId, (t, remaining) => this.#onDetach(t, remaining), previous, { freshInbox: true });
      this.#transports.set(input.requestId, transport);
      // Appends of the new numbering that overtook its seqno 0 were parked on the old request.
      for (const parked of previous.parked) transport.inbox.push(parked.seqno, parked.message);
    }
    if (input.seqno === 0 && transport.firstPayload === undefined) transport.firstPayload = input.message;
    // A heartbeat is answered at once, even across a gap; it still takes its
    // seqno in the inbox so later appends are not held behind it.
    if (message.message.case === "clientHeartbeat") transport.outbox.pushTransient(HEARTBEAT_FRAME);
    const pushed = transport.inbox.push(input.seqno, message);
    if (pushed.status === "stale" && transport.state.kind === "ended") {
      // Possibly the start of a reused request's new numbering, ahead of its seqno 0.
      if (transport.parked.length < INBOX_MAX_BUFFERED) transport.parked.push({ seqno: input.seqno, message });
      return pushed;
    }
    if (pushed.status !== "released") return pushed;
    // Looked up per item: a run_request may renew the request's transport.
    for (const item of pushed.items) this.#dispatch(this.#transports.get(input.requestId) ?? transport, item, input);
    return { status: "accepted" };
  }

  /** Cancels every run and closes every stream with `canceled` (deploy, eviction, tests). */
  async shutdown(): Promise<void> {
    this.#registry.shutdown();
    for (const transport of this.#transports.values()) {
      if (transport.state.kind === "running") transport.state.run.cancel("server is shutting down");
      this.#end(transport, RUN_CANCELLED());
    }
    if (this.#heartbeat !== undefined) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
    await Promise.allSettled([...this.#runs]);
  }

  #dispatch(transport: Transport, message: AgentClientMessage, input: AppendInput): void {
    switch (message.message.case) {
      case "runRequest":
        this.#startRun(transport, message.message.value, input);
        return;
      case "execClientMessage":
        transport.channel?.deliverExec(message.message.value);
        return;
      case "execClientControlMessage":
        transport.channel?.deliverControl(message.message.value);
        return;
      case "kvClientMessage":
        transport.channel?.deliverKv(message.message.value);
        return;
      case "interactionResponse":
        transport.channel?.deliverInteraction(message.message.value);
        return;
      case "conversationAction":
        this.#onRuntimeAction(transport, message.message.value);
        return;
      case "clientHeartbeat":
      case "prewarmRequest":
      case undefined:
        return;
    }
  }

  #onRuntimeAction(transport: Transport, action: ConversationAction): void {
    applyRuntimeAction({ transport, queueForNextRun: (injection) => this.#queuedForNextRun.push(injection) }, action);
  }

  #startRun(current: Transport, request: AgentRunRequest, input: AppendInput): void {
    let transport = current;
    if (transport.state.kind === "running") {
      // A second run_request on a live request replaces the running one; the
      // stream goes on with the new run.
      transport.state.run.cancel("replaced by a newer run_request");
    } else if (transport.state.kind === "ended") {
      // Cursor may reuse a request id for a later turn: a fresh stream, same seqno order and ids.
      transport = new Transport(input.requestId, (t, remaining) => this.#onDetach(t, remaining), transport);
      this.#transports.set(input.requestId, transport);
    }
    const resolved = this.#resolveModel(request, input.conversationId);
    if ("error" in resolved) {
      this.#end(transport, resolved.error);
      return;
    }
    const model = resolved.model;
    const action = runAction(request);
    if ("error" in action) {
      this.#end(transport, action.error);
      return;
    }

    const runId = `${input.requestId}:${randomHex(4)}`;
    this.deps.store.ensureConversation(input.conversationId, input.principal);
    this.deps.store.claimRun({ runId, conversationId: input.conversationId, requestId: input.requestId, model: model.name });
    const emit = (message: AgentServerMessage) => transport.outbox.push(serverFrame(message), message.message.case === "kvServerMessage");
    const run = new RunHandle(runId, transport, emit);
    const channel = run.channel;
    transport.state = { kind: "running", run };
    // One active run per conversation: a newer run replaces the older one.
    this.#registry.activate(input.conversationId, runId, run);
    this.#ensureHeartbeat();
    // Nobody is listening yet (or any more): the disconnect grace applies from the start.
    if (transport.outbox.subscriberCount === 0) this.#onDetach(transport, 0);

    const subagent = input.parent !== undefined || !!request.subagentTypeName;
    const userMode = request.action?.action.case === "userMessageAction" ? request.action.action.value.userMessage?.mode : undefined;
    const done = runAgent(
      { store: this.deps.store, provider: this.deps.provider(model), channel, emit },
      {
        runId,
        requestId: input.requestId,
        conversationId: input.conversationId,
        model,
        action: action.action,
        tools: subagent ? SUBAGENT_TOOLS : AGENT_TOOLS,
        state: { todos: [], mode: userMode || request.conversationState?.mode || 1 },
        ...clientState(request),
        signal: run.signal,
        control: run.control,
        // A summary run takes no new input; queued messages wait for the next turn.
        queued: action.action.kind === "summarize" ? [] : this.#queuedForNextRun.splice(0),
        resolveSubagentModel: subagentModelResolver(
          model.name,
          this.deps.catalog().models.map((m) => m.name),
          request.subagentModelOverrides,
        ),
      },
    ).then(
      (outcome) => this.#finishRun(run, input.conversationId, model.name, outcome),
      (err: unknown) => {
        // runAgent settles every failure itself; this is a bug guard, not a path.
        console.error("byok-edge: run crashed", runId, errorKind(err));
        this.#finishRun(run, input.conversationId, model.name, {
          status: "failed",
          usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
          error: new AppError("internal", "internal error"),
        });
      },
    );
    this.#runs.add(done);
    void done.finally(() => this.#runs.delete(done));
  }

  #finishRun(run: RunHandle, conversationId: string, model: string, outcome: RunOutcome): void {
    // Every exec still running is aborted before the stream ends.
    if (outcome.status !== "completed") run.channel.abortOpenExecs({ includeDetached: true });
    // A turn that completed stays completed (its tail went out in one piece); a
    // failure caused by a cancel is a cancel.
    const final: RunOutcome = run.cancelled && outcome.status === "failed" ? { status: "cancelled", usage: outcome.usage } : outcome;
    switch (final.status) {
      case "completed":
        this.deps.store.finishRun(run.runId, "completed", { usage: final.usage });
        break;
      case "cancelled":
        this.deps.store.finishRun(run.runId, "cancelled", { usage: final.usage });
        break;
      case "failed":
        this.deps.store.finishRun(run.runId, "failed", {
          usage: final.usage,
          failureCode: final.error.code,
          failureMessage: final.error.message,
        });
        break;
    }
    // A run replaced by a newer run_request on the same request leaves the stream to it.
    const transport = run.transport;
    if (transport.state.kind === "running" && transport.state.run === run) {
      transport.outbox.dropFinished();
      this.#end(transport, final.status === "completed" ? undefined : final.status === "cancelled" ? RUN_CANCELLED() : final.error);
    }
    this.#registry.release(conversationId, run.runId);
    this.deps.onRunFinished({ runId: run.runId, conversationId, model, outcome: final });
  }

  #resolveModel(request: AgentRunRequest, conversationId: string): { model: ModelConfig } | { error: AppError } {
    const catalog = this.deps.catalog();
    const variant = parseVariant(
      request.requestedModel?.modelId || request.modelDetails?.modelId || this.deps.store.conversation(conversationId)?.lastModel || "",
    );
    const requested = variant.name;
    if (!requested) {
      return { error: new AppError("invalid_argument", "run_request names no model and the conversation has none yet") };
    }
    const model = catalog.models.find((m) => m.name === requested);
    if (model) return { model: applyParameters(model, [...variant.parameters, ...(request.requestedModel?.parameters ?? [])]) };
    const problem = catalog.problems.get(requested);
    if (problem) return { error: new AppError("failed_precondition", problem) };
    const names = catalog.models.map((m) => m.name).join(", ") || "none";
    return { error: new AppError("not_found", `model "${requested}" is not configured (configured: ${names})`) };
  }

  #end(transport: Transport, error?: AppError): void {
    transport.outbox.end(error);
    transport.state = { kind: "ended", atMs: Date.now() };
    if (transport.graceTimer !== undefined) {
      clearTimeout(transport.graceTimer);
      transport.graceTimer = undefined;
    }
  }

  #transport(requestId: string): Transport {
    let transport = this.#transports.get(requestId);
    if (!transport) {
      this.#pruneEnded();
      transport = new Transport(requestId, (t, remaining) => this.#onDetach(t, remaining));
      this.#transports.set(requestId, transport);
    }
    return transport;
  }

  /** The last subscriber left a running turn: cancel it unless one comes back in time. */
  #onDetach(transport: Transport, remaining: number): void {
    if (remaining > 0 || transport.state.kind !== "running" || transport.graceTimer !== undefined) return;
    transport.graceTimer = setTimeout(() => {
      transport.graceTimer = undefined;
      if (transport.outbox.subscriberCount === 0 && transport.state.kind === "running") {
        transport.state.run.cancel("the client disconnected");
      }
    }, this.deps.disconnectGraceMs);
  }

  /** Forgets requests that ended (or never started) long ago, so the object's memory stays bounded. */
  #pruneEnded(): void {
    const now = Date.now();
    for (const [id, t] of this.#transports) {
      const ended = t.state.kind === "ended" && t.state.atMs < now - ENDED_TRANSPORT_TTL_MS;
      const abandoned = t.state.kind === "waiting" && t.createdAtMs < now - ENDED_TRANSPORT_TTL_MS;
      if (abandoned) t.outbox.end(new AppError("deadline_exceeded", "no run_request arrived for this request"));
      if (ended || abandoned) this.#transports.delete(id);
    }
  }

  /** One interval for the whole object; it stops itself when nothing is running. */
  #ensureHeartbeat(): void {
    if (this.#heartbeat !== undefined) return;
    this.#heartbeat = setInterval(() => {
      let running = 0;
      for (const t of this.#transports.values()) {
        if (t.state.kind !== "running") continue;
        running += 1;
        if (t.outbox.idleMs() >= IDLE_HEARTBEAT_MS) t.outbox.pushTransient(HEARTBEAT_FRAME);
      }
      if (running === 0 && this.#heartbeat !== undefined) {
        clearInterval(this.#heartbeat);
        this.#heartbeat = undefined;
      }
    }, HEARTBEAT_TICK_MS);
  }
}

/** The stream a reconnecting client gets for a run that ended in an earlier life of this object. */
function endedStream(status: string, failureCode: string | null): ReadableStream<Uint8Array> {
  const error =
    status === "completed"
      ? undefined
      : status === "cancelled"
        ? RUN_CANCELLED()
        : failureCode === "aborted"
          ? new AppError("unavailable", "the run was interrupted by a server restart; send the message again")
          : new AppError("unavailable", "the run failed; send the message again");
  return new ReadableStream({
    start(controller) {
      controller.enqueue(encodeEndStream(error));
      controller.close();
    },
  });
}

/** A run_request at seqno 0 on a finished request that is not a repeat of its first one. */
function isRestart(transport: Transport, input: AppendInput): boolean {
  if (transport.state.kind !== "ended" || input.seqno !== 0 || !transport.firstPayload) return false;
  const first = transport.firstPayload;
  return first.byteLength !== input.message.byteLength || first.some((b, i) => b !== input.message[i]);
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
