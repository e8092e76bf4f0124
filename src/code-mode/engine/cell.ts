// One cell's life (docs/code-mode.md#cells), after Codex's cell actor: output is drained
// by each observation (never repeated); a result with no observer is held for the next
// one, and the cell closes once a result or termination is delivered. Stored-value
// writes are committed when the module settles (also after exit() or an error) and
// discarded when the cell is terminated.
import {
  activeObserverMessage,
  alreadyTerminatingMessage,
  CellRuntimeError,
  DELEGATE_CANCELLED,
  RUNTIME_ENDED,
  SessionClosedError,
  storeFailedMessage,
  WaitCancelledError,
} from "./engine-errors.ts";
import { Observer, type ObserverHooks, type ObserverSignals } from "./observer.ts";
import type { CellCallbacks, CellEvent, CellRunner, CellRunResult, RunningCell, ToolReply } from "./runner.ts";
import { analyseSource } from "./cell-source.ts";
import { toolIdentifier } from "./tool-names.ts";
import type {
  CellDelegate,
  CellToolCall,
  ContentItem,
  ExecuteRequest,
  RuntimeResponse,
  StoredValues,
  WaitOutcome,
} from "./engine-types.ts";

type CellState =
  /** Running; `started` once the runtime said so (observers' timers run from then). */
  | { phase: "live"; started: boolean; observer: Observer | undefined }
  /** The run ended with no observer: the response waits for the next one. */
  | { phase: "finished"; response: RuntimeResponse }
  /** terminate() or shutdown() is stopping the isolate. */
  | { phase: "terminating"; observer: Observer | undefined }
  | { phase: "closed" };

export interface CellOptions {
  cellId: string;
  request: ExecuteRequest;
  delegate: CellDelegate;
  runner: CellRunner;
  values: StoredValues;
  /** The cell holds an isolate (true) or let go of it (false). */
  onIsolate(cell: Cell, held: boolean): void;
  onClosed(cell: Cell): void;
}

export class Cell {
  readonly cellId: string;
  readonly started: Promise<void>;
  readonly #options: CellOptions;
  #state: CellState = { phase: "live", started: false, observer: undefined };
  /** Output since the last observation. */
  #items: ContentItem[] = [];
  #toolSeq = 0;
  readonly #toolCalls = new Set<AbortController>();
  readonly #notifications = new AbortController();
  #running: RunningCell | undefined;
  readonly #started = Promise.withResolvers<void>();
  readonly #hooks: ObserverHooks = {
    yield: (observer) => this.#yieldTo(observer),
    cancel: (observer) => this.#retire(observer),
  };

  constructor(options: CellOptions) {
    this.cellId = options.cellId;
    this.#options = options;
    this.started = this.#started.promise;
  }

  /** Starts the run with its initial observer (the Execute). */
  start(initial: Observer): void {
    this.#observe(initial);
    const { request, runner } = this.#options;
    const analysis = analyseSource(request.source);
    if (analysis.kind === "refused") {
      this.#onStarted();
      this.#onResult({ kind: "completed", writes: {}, errorText: analysis.errorText });
      return;
    }
    if (analysis.kind === "syntax-error") {
      this.#onStarted();
      // V8's message comes from a probe isolate: it counts against the session's isolates too.
      this.#options.onIsolate(this, true);
      runner
        .syntaxError(request.source)
        .catch(() => undefined)
        .then((text) => {
          this.#options.onIsolate(this, false);
          this.#onResult({ kind: "completed", writes: {}, errorText: text ?? analysis.fallbackText });
        });
      return;
    }
    const callbacks: CellCallbacks = {
      started: () => this.#onStarted(),
      events: (events) => this.#onEvents(events),
      callTool: (index, inputJson) => this.#callTool(index, inputJson),
    };
    try {
      // Inside the try: a snapshot that cannot be read must end the cell, not leave it live.
      const launch = {
        cellId: this.cellId,
        moduleText: analysis.text,
        tools: request.enabledTools.map((tool) => ({ name: toolIdentifier(tool.name), description: tool.description })),
        snapshot: this.#options.values.snapshot(),
      };
      this.#running = runner.start(launch, callbacks);
    } catch (error) {
      this.#onStarted();
      this.#onResult({ kind: "crashed", reason: String(error) });
      return;
    }
    this.#options.onIsolate(this, true);
    this.#running.result.then((result) => {
      this.#options.onIsolate(this, false);
      this.#onResult(result);
    });
  }

  async wait(timeoutMs: number, signals: ObserverSignals): Promise<WaitOutcome> {
    const state = this.#state;
    if (state.phase === "finished") return { kind: "live", response: this.#deliverHeld(state.response) };
    if (state.phase === "terminating" || (state.phase === "live" && state.observer)) {
      throw new CellRuntimeError(activeObserverMessage(this.cellId));
    }
    if (state.phase === "closed") throw new CellRuntimeError(activeObserverMessage(this.cellId));
    if (signals.cancel?.aborted) throw new WaitCancelledError();
    const observer = new Observer(timeoutMs, signals);
    this.#observe(observer);
    return { kind: "live", response: await observer.response };
  }

  async terminate(): Promise<WaitOutcome> {
    const state = this.#state;
    if (state.phase === "finished") return { kind: "live", response: this.#deliverHeld(state.response) };
    if (state.phase === "terminating") throw new CellRuntimeError(alreadyTerminatingMessage(this.cellId));
    if (state.phase === "closed") throw new CellRuntimeError(alreadyTerminatingMessage(this.cellId));
    const observer = state.observer;
    observer?.quiet();
    this.#state = { phase: "terminating", observer };
    this.#cancelCallbacks();
    const response: RuntimeResponse = { kind: "terminated", cellId: this.cellId, items: this.#drain() };
    await this.#running?.stop();
    observer?.settle(response);
    this.#close();
    return { kind: "live", response };
  }

  /** The Execute's caller went away before its outcome: the cell ends and closes. */
  abandon(): void {
    const state = this.#state;
    if (state.phase === "finished") this.#close();
    else if (state.phase === "live") this.terminate().catch(() => {});
  }

  /** The session closes: observers fail with SessionClosedError, writes are discarded. */
  async shutdown(): Promise<void> {
    const state = this.#state;
    if (state.phase === "closed") return;
    if (state.phase !== "finished") state.observer?.fail(new SessionClosedError());
    this.#state = { phase: "terminating", observer: undefined };
    this.#cancelCallbacks();
    await this.#running?.stop();
    this.#close();
  }

  #observe(observer: Observer): void {
    const state = this.#state;
    if (state.phase !== "live") return;
    state.observer = observer;
    observer.listen(this.#hooks);
    if (state.started && state.observer === observer) observer.arm();
  }

  #onStarted(): void {
    const state = this.#state;
    if (state.phase !== "live" || state.started) return;
    state.started = true;
    this.#started.resolve();
    state.observer?.arm();
  }

  #onEvents(events: CellEvent[]): void {
    for (const event of events) {
      if (this.#state.phase !== "live") return;
      if (event.type === "item") this.#items.push(event.item);
      else if (event.type === "notify") this.#notify(event.text);
      else if (this.#state.observer) this.#yieldTo(this.#state.observer);
    }
  }

  #notify(text: string): void {
    const { delegate, request } = this.#options;
    const notification = { callId: request.toolCallId, cellId: this.cellId, text };
    // A failed notification does not concern the cell (Codex swallows it too).
    try {
      delegate.notify(notification, this.#notifications.signal).catch(() => {});
    } catch {}
  }

  async #callTool(index: number, inputJson: string | undefined): Promise<ToolReply> {
    const tool = this.#options.request.enabledTools[index];
    if (this.#state.phase !== "live" || !tool) return { ok: false, message: DELEGATE_CANCELLED };
    const call: CellToolCall = {
      cellId: this.cellId,
      runtimeToolCallId: `tool-${++this.#toolSeq}`,
      toolName: tool.toolName,
      toolKind: tool.kind,
      ...(inputJson === undefined ? {} : { input: JSON.parse(inputJson) }),
    };
    const controller = new AbortController();
    const { signal } = controller;
    this.#toolCalls.add(controller);
    const cancelled = new Promise<ToolReply>((resolve) => {
      signal.addEventListener("abort", () => resolve({ ok: false, message: DELEGATE_CANCELLED }), { once: true });
    });
    const invoked = (async (): Promise<ToolReply> => {
      try {
        const output = await this.#options.delegate.invokeTool(call, signal);
        return { ok: true, outputJson: output === undefined ? undefined : JSON.stringify(output) };
      } catch (error) {
        return { ok: false, message: signal.aborted ? DELEGATE_CANCELLED : rejectionMessage(error) };
      }
    })();
    try {
      return await Promise.race([invoked, cancelled]);
    } finally {
      this.#toolCalls.delete(controller);
    }
  }

  #onResult(result: CellRunResult): void {
    if (this.#state.phase !== "live") return;
    this.#onStarted();
    this.#cancelToolCalls();
    let response: RuntimeResponse;
    if (result.kind === "completed") {
      const errorText = joinErrors(result.errorText, this.#commit(result.writes));
      response = { kind: "completed", cellId: this.cellId, items: this.#drain(), ...errorField(errorText) };
    } else if (result.kind === "limit-exceeded") {
      response = { kind: "terminated", cellId: this.cellId, items: this.#drain() };
    } else {
      response = { kind: "completed", cellId: this.cellId, items: this.#drain(), errorText: RUNTIME_ENDED };
    }
    const observer = this.#state.observer;
    if (observer) {
      observer.settle(response);
      this.#close();
    } else {
      this.#state = { phase: "finished", response };
    }
  }

  /** Commits a completed cell's writes; a failure is the cell's error (never a cell left live). */
  #commit(writes: Record<string, unknown>): string | undefined {
    if (Object.keys(writes).length === 0) return undefined;
    try {
      this.#options.values.commit(writes);
      return undefined;
    } catch (error) {
      return storeFailedMessage(rejectionMessage(error));
    }
  }

  #yieldTo(observer: Observer): void {
    const state = this.#state;
    if (state.phase !== "live" || state.observer !== observer) return;
    state.observer = undefined;
    observer.settle({ kind: "yielded", cellId: this.cellId, items: this.#drain() });
  }

  #retire(observer: Observer): void {
    const state = this.#state;
    if (state.phase === "live" && state.observer === observer) state.observer = undefined;
    observer.cancelled();
  }

  #deliverHeld(response: RuntimeResponse): RuntimeResponse {
    this.#close();
    return response;
  }

  #drain(): ContentItem[] {
    const items = this.#items;
    this.#items = [];
    return items;
  }

  #cancelToolCalls(): void {
    for (const controller of this.#toolCalls) controller.abort();
    this.#toolCalls.clear();
  }

  #cancelCallbacks(): void {
    this.#cancelToolCalls();
    this.#notifications.abort();
  }

  #close(): void {
    if (this.#state.phase === "closed") return;
    this.#state = { phase: "closed" };
    this.#started.resolve();
    // Nobody waits for a closed cell's notifications: the host lets go of their acks.
    this.#notifications.abort();
    try {
      this.#options.delegate.cellClosed(this.cellId);
    } catch {}
    this.#options.onClosed(this);
  }
}

function errorField(errorText: string | undefined): { errorText?: string } {
  return errorText === undefined ? {} : { errorText };
}

/** The cell's own error first, then the commit's. */
function joinErrors(cellError: string | undefined, commitError: string | undefined): string | undefined {
  if (commitError === undefined) return cellError;
  return cellError === undefined ? commitError : `${cellError}\n${commitError}`;
}

function rejectionMessage(error: unknown): string {
  if (typeof error === "string") return error;
  if (error instanceof Error) return error.message;
  return String(error);
}
