// One code-mode session as the CodeModeHost service serves it: the engine's
// CodeModeSession plus what the wire adds (docs/code-mode.md#service): the lease
// stream, tool subscriptions and invocations, notifications and their acks, the
// client's execution and wait ids. Its methods take the wire's requests and answer
// with its messages or AppErrors (ConnectErrors) carrying Codex's codes and texts.
import { create } from "@bufbuild/protobuf";
import { AppError } from "../../core/errors.ts";
import { CellLimitError, CellRuntimeError, SessionClosedError, WAIT_CANCELLED, WaitCancelledError } from "../engine/engine-errors.ts";
import type { CodeModeSession, StartedCell } from "../engine/session.ts";
import { errorKind } from "../../core/log-safe.ts";
import {
  type CancelWaitRequest,
  type CompleteToolCallRequest,
  type ExecuteEvent,
  ExecuteEventSchema,
  type ExecuteRequest,
  type SessionEvent,
  SessionEventSchema,
  type SubscribeToToolCallsRequest,
  type TerminateRequest,
  type ToolCall,
  type WaitRequest,
  type WaitResponse,
  type YieldObservationRequest,
} from "../../proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import {
  executeRequestFromProto,
  outcomeToProto,
  parseJsonBytes,
  toolNameFromProto,
  waitResponseToProto,
  yieldTimeFromProto,
} from "./convert.ts";
import { EventQueue } from "./event-queue.ts";
import { executionDelegate, type SessionChannels } from "./execution-delegate.ts";
import { invalid, requireId, requireUuid } from "./ids.ts";
import { type Completion, ToolInvocations } from "./invocations.ts";
import { PendingNotifications } from "./notifications.ts";
import { Observations } from "./observations.ts";
import { SUBSCRIPTION_FILTERS_MAX, ToolSubscriptions } from "./subscriptions.ts";
import { ABORTED, orAborted } from "../engine/until-aborted.ts";

export function unknownSession(sessionId: string): AppError {
  return new AppError("not_found", `unknown code-mode session ${sessionId}`);
}

export interface ServedSessionOptions {
  /** Canonical UUID. */
  sessionId: string;
  engine: CodeModeSession;
  /** Called once, at once, when the session starts retiring: later calls find no session. Retiring ends when it settles too. */
  onRetire(): Promise<void>;
  /** A cell id was taken (the counter survives in storage). */
  onCell?(cellId: string): void;
  /** A hosted user's limits: each cell is a run while its isolate runs (docs/hosting.md#limits); none for "local". */
  admission?: CellAdmission;
  /** A cell's isolate stopped, `wallMs` after its Execute arrived: for the usage ledger. */
  onCellUsage?(cell: { cellId: string; stoppedAtMs: number; wallMs: number }): void;
}

/** Admits a cell as a run of its user (requests_per_minute, max_concurrent_runs) and frees its slot when it stops. */
export interface CellAdmission {
  admit(runId: string): Promise<void>;
  release(runId: string): Promise<void>;
}

export class ServedSession {
  readonly sessionId: string;
  readonly #engine: CodeModeSession;
  readonly #options: ServedSessionOptions;
  readonly #channels: SessionChannels;
  readonly #observations = new Observations();
  /** Cell id → the run id its admission holds, until its isolate stops. */
  readonly #admitted = new Map<string, string>();
  /** Cell id → when its Execute arrived (performance.now), until its isolate stops. */
  readonly #startedAt = new Map<string, number>();
  #retiring: Promise<void> | undefined;

  constructor(options: ServedSessionOptions) {
    this.sessionId = options.sessionId;
    this.#engine = options.engine;
    this.#options = options;
    this.#channels = {
      sessionId: options.sessionId,
      lease: new EventQueue<SessionEvent>(),
      subscriptions: new ToolSubscriptions(),
      invocations: new ToolInvocations(),
      notifications: new PendingNotifications(),
    };
  }

  get open(): boolean {
    return this.#retiring === undefined;
  }

  /** The OpenSession stream: `opened`, then the session's events; the client leaving it retires the session. */
  async *lease(signal: AbortSignal): AsyncGenerator<SessionEvent> {
    try {
      yield create(SessionEventSchema, { event: { case: "opened", value: { sessionId: this.sessionId } } });
      yield* this.#channels.lease.read(signal);
    } finally {
      void this.retire();
    }
  }

  /** The cell's isolate stopped: its wall time goes to usage, and the run its admission held ends. */
  cellStopped(cellId: string): void {
    const startedAt = this.#startedAt.get(cellId);
    if (startedAt !== undefined) {
      this.#startedAt.delete(cellId);
      this.#options.onCellUsage?.({ cellId, stoppedAtMs: Date.now(), wallMs: performance.now() - startedAt });
    }
    const runId = this.#admitted.get(cellId);
    if (runId === undefined) return;
    this.#admitted.delete(cellId);
    void this.#options.admission?.release(runId);
  }

  /** CloseSession, a dropped lease, an expired lease, or a subscription gone with calls pending. */
  retire(): Promise<void> {
    if (this.#retiring) return this.#retiring;
    // Closed first, so that the cells stopped below send nothing more (no cell_closed for them).
    this.#channels.lease.close();
    this.#channels.subscriptions.closeAll();
    this.#channels.notifications.releaseAll();
    const shutdown = this.#engine.shutdown().catch((err: unknown) => {
      console.error("byok-edge: a code-mode session did not shut down cleanly:", errorKind(err));
    });
    // Called at once (an async function runs to its first await); a throw becomes a rejection.
    const retired = (async () => this.#options.onRetire())().catch((err: unknown) => {
      console.error("byok-edge: a retired code-mode session's storage was not cleared:", errorKind(err));
    });
    this.#retiring = Promise.all([shutdown, retired]).then(() => {});
    return this.#retiring;
  }

  async *execute(request: ExecuteRequest, signal: AbortSignal, receivedAtMs: number): AsyncGenerator<ExecuteEvent> {
    const execute = executeRequestFromProto(request);
    const admission = this.#options.admission;
    const runId = `cell:${this.sessionId}:${crypto.randomUUID()}`;
    // Before the observation and the cell id: a refused cell leaves nothing behind.
    await admission?.admit(runId);
    const observation = this.#observations.begin("execution", request.executionId);
    let cell: StartedCell;
    try {
      cell = this.#engine.execute(execute, executionDelegate(this.#channels, request.executionId), { preempt: observation.preempt });
      if (admission) this.#admitted.set(cell.cellId, runId);
      this.#startedAt.set(cell.cellId, receivedAtMs);
    } catch (error) {
      void admission?.release(runId);
      observation.end();
      // Too many running cells took no cell id; the client may retry with the same execution id.
      if (error instanceof CellLimitError) this.#observations.release("execution", request.executionId);
      throw this.#engineError(error, request.sessionId);
    }
    this.#options.onCell?.(cell.cellId);
    let delivered = false;
    try {
      // The cell id is known now; the reference answers `started` at once too, before its isolate runs.
      yield create(ExecuteEventSchema, { event: { case: "started", value: { executionId: request.executionId, cellId: cell.cellId } } });
      const response = await orAborted(cell.initialResponse, signal);
      if (response === ABORTED) return;
      delivered = true;
      yield create(ExecuteEventSchema, { event: { case: "outcome", value: outcomeToProto(response, receivedAtMs) } });
    } catch (error) {
      // The session closed under the cell: the stream ends OK without an outcome, as Codex's does.
      if (error instanceof SessionClosedError) return;
      throw this.#engineError(error, request.sessionId);
    } finally {
      observation.end();
      if (!delivered) cell.abandon();
    }
  }

  async wait(request: WaitRequest, signal: AbortSignal, receivedAtMs: number): Promise<WaitResponse> {
    requireId("cell", request.cellId);
    requireId("wait", request.waitId);
    const observation = this.#observations.begin("wait", request.waitId);
    try {
      if (observation.cancelledEarly) throw new AppError("canceled", WAIT_CANCELLED);
      const cancel = AbortSignal.any([observation.cancel, signal]);
      const outcome = await this.#engine.wait(
        { cellId: request.cellId, yieldTimeMs: yieldTimeFromProto(request.yieldTimeMs) },
        { preempt: observation.preempt, cancel },
      );
      return waitResponseToProto(outcome, receivedAtMs);
    } catch (error) {
      if (error instanceof WaitCancelledError || error instanceof SessionClosedError) throw new AppError("canceled", WAIT_CANCELLED);
      throw this.#engineError(error, request.sessionId);
    } finally {
      observation.end();
    }
  }

  async terminate(request: TerminateRequest, receivedAtMs: number): Promise<WaitResponse> {
    requireId("cell", request.cellId);
    try {
      return waitResponseToProto(await this.#engine.terminate(request.cellId), receivedAtMs);
    } catch (error) {
      throw this.#engineError(error, request.sessionId);
    }
  }

  yieldObservation(request: YieldObservationRequest): void {
    const observation = request.observation;
    if (observation.case === "executionId") this.#observations.yield("execution", requireId("execution", observation.value));
    else if (observation.case === "waitId") this.#observations.yield("wait", requireId("wait", observation.value));
    else throw invalid("missing code-mode observation ID");
  }

  cancelWait(request: CancelWaitRequest): Promise<void> {
    return this.#observations.cancelWait(requireId("wait", request.waitId));
  }

  /**
   * Accepts a completion (a repeat is accepted silently); the result hands it to the cell,
   * which the caller does once its reply is on its way (docs/code-mode.md#tool-calls).
   */
  completeToolCall(request: CompleteToolCallRequest): () => void {
    const invocationId = requireUuid("tool invocation", request.invocationId);
    const outcome = request.outcome;
    let completion: Completion;
    if (outcome.case === "succeeded") {
      completion = { kind: "succeeded", output: parseJsonBytes(outcome.value.outputJson, "invalid code-mode tool output JSON") };
    } else if (outcome.case === "failed") {
      completion = { kind: "failed", message: outcome.value.message };
    } else {
      throw invalid("tool completion is missing its outcome");
    }
    const accepted = this.#channels.invocations.accept(invocationId, completion);
    if (accepted === "unknown") throw new AppError("not_found", `unknown code-mode tool invocation ${invocationId}`);
    return accepted === "repeated" ? () => {} : accepted;
  }

  acknowledgeNotification(notificationId: string): void {
    this.#channels.notifications.acknowledge(requireUuid("notification", notificationId));
  }

  /**
   * A SubscribeToToolCalls stream; `ready` once it takes calls (the response headers go
   * out then). A client leaving it with calls pending closes the session, as Codex does.
   */
  async *subscribe(request: SubscribeToToolCallsRequest, signal: AbortSignal, ready: () => void): AsyncGenerator<ToolCall> {
    if (request.toolNames.length > SUBSCRIPTION_FILTERS_MAX) {
      throw invalid(`code-mode tool subscription exceeds ${SUBSCRIPTION_FILTERS_MAX} filters`);
    }
    const filters = request.toolNames.map(toolNameFromProto);
    const subscription = this.#channels.subscriptions.add(filters);
    ready();
    try {
      yield* subscription.calls.read(signal);
    } finally {
      const left = !subscription.calls.closed;
      this.#channels.subscriptions.remove(subscription);
      if (left && subscription.pending.size > 0) void this.retire();
    }
  }

  #engineError(error: unknown, sessionId: string): unknown {
    // The engine refuses everything once shutdown began: to the client the session is gone.
    if (!this.open) return unknownSession(sessionId);
    if (error instanceof CellRuntimeError) return new AppError("failed_precondition", error.message);
    if (error instanceof CellLimitError) return new AppError("resource_exhausted", error.message);
    return error;
  }
}
