// One active run per conversation: activating a run cancels the one it replaces;
// releasing only removes the entry if it still belongs to that run.

export interface Cancellable {
  cancel(reason: string): void;
}

export class RunRegistry<R extends Cancellable = Cancellable> {
  readonly #active = new Map<string, { runId: string; run: R }>();

  /** Makes `run` the conversation's active run, cancelling the previous one. */
  activate(conversationId: string, runId: string, run: R): void {
    const previous = this.#active.get(conversationId);
    if (previous && previous.runId !== runId) previous.run.cancel("replaced by a newer run");
    this.#active.set(conversationId, { runId, run });
  }

  /** Forgets the active run, unless a newer one has replaced it meanwhile. */
  release(conversationId: string, runId: string): void {
    if (this.#active.get(conversationId)?.runId === runId) this.#active.delete(conversationId);
  }

  active(conversationId: string): R | undefined {
    return this.#active.get(conversationId)?.run;
  }

  /** Cancels every active run. */
  shutdown(reason = "server is shutting down"): void {
    for (const { run } of this.#active.values()) run.cancel(reason);
    this.#active.clear();
  }
}
