// Tool invocations waiting for their CompleteToolCall, by invocation id. A
// completion for an invocation already settled (completed, or cancelled by its
// cell) is accepted silently, as Codex does; one the session never issued is
// not_found.
import { RememberedIds } from "./remembered-ids.ts";

export type Completion = { kind: "succeeded"; output: unknown } | { kind: "failed"; message: string };

interface Waiting {
  settle(completion: Completion): void;
}

export class ToolInvocations {
  readonly #waiting = new Map<string, Waiting>();
  readonly #settled = new RememberedIds();

  /** A new invocation; the promise settles with its completion. */
  issue(invocationId: string): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      this.#waiting.set(invocationId, {
        settle: (completion) => {
          if (completion.kind === "succeeded") resolve(completion.output);
          else reject(new Error(completion.message));
        },
      });
    });
  }

  complete(invocationId: string, completion: Completion): "completed" | "repeated" | "unknown" {
    const waiting = this.#waiting.get(invocationId);
    if (waiting) {
      this.#forget(invocationId);
      waiting.settle(completion);
      return "completed";
    }
    return this.#settled.has(invocationId) ? "repeated" : "unknown";
  }

  /** The cell no longer waits for it (terminated, finished, or the session closed). False if it was settled already. */
  drop(invocationId: string): boolean {
    if (!this.#waiting.has(invocationId)) return false;
    this.#forget(invocationId);
    return true;
  }

  #forget(invocationId: string): void {
    this.#waiting.delete(invocationId);
    this.#settled.add(invocationId);
  }
}
