// A live run: its id, where its output goes, and how to stop it.
import type { Transport } from "./transport.ts";

export class RunHandle {
  readonly #controller = new AbortController();

  constructor(
    readonly runId: string,
    readonly transport: Transport,
  ) {}

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cancelled(): boolean {
    return this.#controller.signal.aborted;
  }

  cancel(reason: string): void {
    if (!this.#controller.signal.aborted) {
      this.#controller.abort(new DOMException(reason, "AbortError"));
    }
  }
}
