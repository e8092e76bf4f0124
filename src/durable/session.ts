// The live session of one conversation: its requests (transports) and its one
// active run. Appends arrive here in any order and leave the inbox in seqno
// order; runs report their outcome here, and this is the one place that ends
// a request's stream.
import type { AgentClientMessage, AgentRunRequest } from "../proto/gen/agent/v1/agent_pb.ts";
import { decodeClientMessage, HEARTBEAT_FRAME, serverFrame } from "../proto/frames.ts";
import { AppError } from "../proto/connect/error.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import type { ModelCatalog } from "../config/models.ts";
import type { ModelConfig, Provider, ProviderKind } from "../provider/types.ts";
import { runTurn, type TurnOutcome } from "../agent/turn.ts";
import { RUN_CANCELLED } from "../agent/errors.ts";
import { Transport } from "./transport.ts";
import { RunHandle } from "./run-handle.ts";

/** A quiet running turn sends a heartbeat this often so proxies keep the stream open. */
export const IDLE_HEARTBEAT_MS = 5_000;
/** Ended requests stay replayable this long for reconnecting clients. */
const ENDED_TRANSPORT_TTL_MS = 10 * 60 * 1000;

export interface SessionDeps {
  store: ConversationStore;
  catalog: () => ModelCatalog;
  provider: (kind: ProviderKind) => Provider;
  /** Called once per finished run (usage accounting); failures are the callee's. */
  onRunFinished: (summary: RunSummary) => void;
}

export interface RunSummary {
  runId: string;
  conversationId: string;
  model: string;
  outcome: TurnOutcome;
}

export interface AppendInput {
  principal: string;
  conversationId: string;
  requestId: string;
  seqno: number;
  /** Serialized AgentClientMessage (the worker has validated it). */
  message: Uint8Array;
}

export type AppendResult =
  | { status: "accepted" }
  | { status: "buffered" }
  | { status: "duplicate" }
  | { status: "stale" };

export class ConversationSession {
  readonly #transports = new Map<string, Transport>();
  #active: RunHandle | null = null;
  readonly #runs = new Set<Promise<void>>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(readonly deps: SessionDeps) {}

  subscribe(requestId: string): ReadableStream<Uint8Array> {
    return this.#transport(requestId).outbox.subscribe();
  }

  append(input: AppendInput): AppendResult {
    const message = decodeClientMessage(input.message);
    const transport = this.#transport(input.requestId);
    // A heartbeat is answered at once, even across a gap; it still takes its
    // seqno in the inbox so later appends are not held behind it.
    if (message.message.case === "clientHeartbeat") transport.outbox.pushTransient(HEARTBEAT_FRAME);
    const pushed = transport.inbox.push(input.seqno, message);
    if (pushed.status !== "released") return pushed;
    for (const item of pushed.items) this.#dispatch(transport, item, input);
    return { status: "accepted" };
  }

  /** Cancels every run and closes every stream with `canceled` (deploy, eviction, tests). */
  async shutdown(): Promise<void> {
    this.#active?.cancel("server is shutting down");
    for (const transport of this.#transports.values()) {
      if (transport.state.kind === "running") transport.state.run.cancel("server is shutting down");
      this.#end(transport, RUN_CANCELLED());
    }
    await Promise.allSettled([...this.#runs]);
  }

  /** Resolves when every run started so far has finished (tests, graceful stops). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.#runs]);
  }

  get activeRunId(): string | null {
    return this.#active?.runId ?? null;
  }

  #dispatch(transport: Transport, message: AgentClientMessage, input: AppendInput): void {
    switch (message.message.case) {
      case "runRequest":
        this.#startRun(transport, message.message.value, input);
        return;
      case "clientHeartbeat":
      case "prewarmRequest":
        return;
      default:
        // Exec/KV results and runtime actions arrive with tool rounds; until a
        // run needs them they carry nothing to act on.
        return;
    }
  }

  #startRun(transport: Transport, request: AgentRunRequest, input: AppendInput): void {
    if (transport.state.kind !== "waiting") {
      // Cursor reuses a request id only after its turn ended; a second
      // run_request on a live request replaces the running one.
      if (transport.state.kind === "running") transport.state.run.cancel("replaced by a newer run_request");
    }
    const resolved = this.#resolveModel(request, input.conversationId);
    if ("error" in resolved) {
      this.#end(transport, resolved.error);
      return;
    }
    const model = resolved.model;
    const action = request.action?.action;
    if (action?.case !== "userMessageAction") {
      this.#end(
        transport,
        new AppError("unimplemented", `conversation action ${action?.case ?? "(none)"} is not supported yet`),
      );
      return;
    }
    const userMessage = action.value.userMessage;

    // One active run per conversation: a newer run replaces the older one.
    this.#active?.cancel("replaced by a newer run");
    const runId = `${input.requestId}:${randomHex(4)}`;
    this.deps.store.ensureConversation(input.conversationId, input.principal);
    this.deps.store.claimRun({ runId, conversationId: input.conversationId, requestId: input.requestId, model: model.name });
    const run = new RunHandle(runId, transport);
    transport.state = { kind: "running", run };
    this.#active = run;
    this.#ensureHeartbeat();

    const done = runTurn(
      {
        store: this.deps.store,
        provider: this.deps.provider(model.provider),
        emit: (message) => {
          if (!run.cancelled) transport.outbox.push(serverFrame(message));
        },
      },
      {
        runId,
        conversationId: input.conversationId,
        model,
        userMessageId: userMessage?.messageId ?? "",
        userText: userMessage?.text ?? "",
        signal: run.signal,
      },
    ).then(
      (outcome) => this.#finishRun(run, input.conversationId, model.name, outcome),
      (err: unknown) => {
        // runTurn settles every failure itself; this is a bug guard, not a path.
        console.error("byok-edge: run crashed", runId, err);
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

  #finishRun(run: RunHandle, conversationId: string, model: string, outcome: TurnOutcome): void {
    const final: TurnOutcome = run.cancelled && outcome.status !== "cancelled" ? { status: "cancelled", usage: outcome.usage } : outcome;
    switch (final.status) {
      case "completed":
        this.deps.store.finishRun(run.runId, "completed", { usage: final.usage });
        this.#end(run.transport);
        break;
      case "cancelled":
        this.deps.store.finishRun(run.runId, "cancelled", { usage: final.usage });
        this.#end(run.transport, RUN_CANCELLED());
        break;
      case "failed":
        this.deps.store.finishRun(run.runId, "failed", {
          usage: final.usage,
          failureCode: final.error.code,
          failureMessage: final.error.message,
        });
        this.#end(run.transport, final.error);
        break;
    }
    if (this.#active === run) this.#active = null;
    this.deps.onRunFinished({ runId: run.runId, conversationId, model, outcome: final });
  }

  #resolveModel(request: AgentRunRequest, conversationId: string): { model: ModelConfig } | { error: AppError } {
    const catalog = this.deps.catalog();
    const requested =
      request.requestedModel?.modelId || request.modelDetails?.modelId || this.deps.store.conversation(conversationId)?.lastModel || "";
    if (!requested) {
      return { error: new AppError("invalid_argument", "run_request names no model and the conversation has none yet") };
    }
    const model = catalog.models.find((m) => m.name === requested);
    if (model) return { model };
    const problem = catalog.problems.get(requested);
    if (problem) return { error: new AppError("failed_precondition", problem) };
    const names = catalog.models.map((m) => m.name).join(", ") || "none";
    return { error: new AppError("not_found", `model "${requested}" is not configured (configured: ${names})`) };
  }

  #end(transport: Transport, error?: AppError): void {
    transport.outbox.end(error);
    transport.state = { kind: "ended" };
  }

  #transport(requestId: string): Transport {
    let transport = this.#transports.get(requestId);
    if (!transport) {
      this.#pruneEnded();
      transport = new Transport(requestId, () => {});
      this.#transports.set(requestId, transport);
    }
    return transport;
  }

  #pruneEnded(): void {
    const cutoff = Date.now() - ENDED_TRANSPORT_TTL_MS;
    for (const [id, t] of this.#transports) {
      if (t.state.kind === "ended" && t.createdAtMs < cutoff) this.#transports.delete(id);
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
    }, IDLE_HEARTBEAT_MS);
  }
}

function randomHex(bytes: number): string {
  return [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
