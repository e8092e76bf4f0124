// The conversation's one active run, in one place: starting a run cancels the one
// it replaces, releasing touches nothing unless it is still the active one, and
// shutdown cancels it. Replaced runs wind down on their own and take no input.

export interface Cancellable {
  readonly runId: string;
  cancel(reason: string): void;
}

export class ActiveRun<R extends Cancellable = Cancellable> {
  #active: R | undefined;

  /** Makes `run` the active run, cancelling the one it replaces. */
  activate(run: R): void {
    if (this.#active && this.#active.runId !== run.runId) this.#active.cancel("replaced by a newer run");
    this.#active = run;
  }

  /** Forgets the run, unless a newer one has replaced it meanwhile. */
  release(runId: string): void {
    if (this.#active?.runId === runId) this.#active = undefined;
  }

  /** The active run's id, if a run is active. */
  activeId(): string | undefined {
    return this.#active?.runId;
  }

  /** The run if it is still the active one. */
  get(runId: string): R | undefined {
    return this.#active?.runId === runId ? this.#active : undefined;
  }

  /** Cancels the active run. */
  shutdown(reason = "server is shutting down"): void {
    this.#active?.cancel(reason);
    this.#active = undefined;
  }
}
