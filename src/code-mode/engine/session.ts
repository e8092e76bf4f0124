// A code-mode session's cells (docs/code-mode.md#cells): ids "1", "2", … (with the
// generation prefix after a restart), allocated before the cell starts; at most
// MAX_RUNNING_CELLS isolates at once (a Worker Loader limit per Durable Object).
import { Cell } from "./cell.ts";
import {
  CellLimitError,
  CellRuntimeError,
  MAX_RUNNING_CELLS,
  notFoundMessage,
  SHUTTING_DOWN,
  tooManyCellsMessage,
} from "./engine-errors.ts";
import { Observer } from "./observer.ts";
import type { CellRunner } from "./runner.ts";
import type { CellDelegate, ExecuteRequest, RuntimeResponse, SessionLimits, StoredValues, WaitOutcome } from "./engine-types.ts";
import { resolveYieldTimeMs } from "./yield-time.ts";

export interface StartedCell {
  cellId: string;
  /** Resolves when the runtime reports the cell started (the yield timer starts then), or when it ends before that. Never rejects. */
  started: Promise<void>;
  /** Rejects with SessionClosedError if the session shuts down first. */
  initialResponse: Promise<RuntimeResponse>;
  /** The Execute's caller went away before the outcome: terminate the cell (it still closes; id used up). */
  abandon(): void;
}

export interface SessionOptions {
  runner: CellRunner;
  values: StoredValues;
  limits: SessionLimits;
  /** "" or a generation prefix such as "g2:". */
  cellIdPrefix?: string;
  /** A cell's isolate stopped (it finished, failed, was terminated or shut down): it no longer runs. */
  onCellStopped?(cellId: string): void;
}

export class CodeModeSession {
  readonly #options: SessionOptions;
  readonly #cells = new Map<string, Cell>();
  /** Cells whose isolate is still running (also terminated ones not yet stopped). */
  readonly #busy = new Set<Cell>();
  #lastId = 0;
  #shuttingDown = false;

  constructor(options: SessionOptions) {
    this.#options = options;
  }

  /**
   * Allocates the next cell id at once, even if the start then fails. Throws
   * CellRuntimeError once shut down, and CellLimitError (no id used) when
   * MAX_RUNNING_CELLS cells are running.
   */
  execute(request: ExecuteRequest, delegate: CellDelegate, options: { preempt?: AbortSignal } = {}): StartedCell {
    if (this.#shuttingDown) throw new CellRuntimeError(SHUTTING_DOWN);
    if (this.#busy.size >= MAX_RUNNING_CELLS) throw new CellLimitError(tooManyCellsMessage());
    const cellId = `${this.#options.cellIdPrefix ?? ""}${++this.#lastId}`;
    const cell = new Cell({
      cellId,
      request,
      delegate,
      runner: this.#options.runner,
      values: this.#options.values,
      onIsolate: (held, isHeld) => {
        if (isHeld) {
          this.#busy.add(held);
        } else if (this.#busy.delete(held)) {
          this.#options.onCellStopped?.(held.cellId);
        }
      },
      onClosed: (closed) => {
        if (this.#cells.get(closed.cellId) === closed) this.#cells.delete(closed.cellId);
      },
    });
    this.#cells.set(cellId, cell);
    const initial = new Observer(this.#yieldTime(request.yieldTimeMs), options.preempt ? { preempt: options.preempt } : {});
    cell.start(initial);
    return { cellId, started: cell.started, initialResponse: initial.response, abandon: () => cell.abandon() };
  }

  /** Observes a cell; the yield timer per docs rules (clamped by limits.maxYieldTimeMs). */
  async wait(
    request: { cellId: string; yieldTimeMs: number },
    options: { preempt?: AbortSignal; cancel?: AbortSignal } = {},
  ): Promise<WaitOutcome> {
    if (this.#shuttingDown) throw new CellRuntimeError(SHUTTING_DOWN);
    const cell = this.#cells.get(request.cellId);
    if (!cell) return missing(request.cellId);
    return cell.wait(this.#yieldTime(request.yieldTimeMs), options);
  }

  async terminate(cellId: string): Promise<WaitOutcome> {
    if (this.#shuttingDown) throw new CellRuntimeError(SHUTTING_DOWN);
    const cell = this.#cells.get(cellId);
    if (!cell) return missing(cellId);
    return cell.terminate();
  }

  /**
   * Session closed: running cells are stopped (writes discarded), pending initial responses and
   * waits reject with SessionClosedError; later calls throw CellRuntimeError("code mode session is shutting down").
   */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    const cells = [...this.#cells.values()];
    await Promise.all(cells.map((cell) => cell.shutdown()));
  }

  /** Isolates in use, for the host's limits and tests. */
  get runningCells(): number {
    return this.#busy.size;
  }

  #yieldTime(requested: number | undefined): number {
    return resolveYieldTimeMs(requested, this.#options.limits.maxYieldTimeMs);
  }
}

function missing(cellId: string): WaitOutcome {
  return { kind: "missing", response: { kind: "completed", cellId, items: [], errorText: notFoundMessage(cellId) } };
}
