// Tool invocations waiting for their CompleteToolCall, by invocation id. A
// completion for an invocation already settled (completed, or cancelled by its
// cell) is accepted silently, as Codex does; one the session never issued is
// not_found. An accepted completion reaches the cell when its caller says so:
// after the CompleteToolCall reply is on its way (docs/code-mode.md#tool-calls).
import { RememberedIds } from "./remembered-ids.ts";

export type Completion = { kind: "succeeded"; output: unknown } | { kind: "failed"; message: string };

interface Waiting {
  settle(completion: Completion): void;
  /** The invocation is no longer waited for: completed or dropped. */
  onSettled(): void;
}

export class ToolInvocations {
  readonly #waiting = new Map<string, Waiting>();
  readonly #settled = new RememberedIds();

  /** A new invocation; the promise settles with its completion. `onSettled` runs once it is completed or dropped. */
  issue(invocationId: string, onSettled: () => void): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      this.#waiting.set(invocationId, {
        settle: (completion) => {
          if (completion.kind === "succeeded") resolve(completion.output);
          else reject(new Error(completion.message));
        },
        onSettled,
      });
    });
  }

  /**
   * Takes a completion: from now on the invocation is settled (a repeat is "repeated").
   * Its result is the function that hands the completion to the cell.
   */
  accept(invocationId: string, completion: Completion): (() => void) | "repeated" | "unknown" {
    const waiting = this.#waiting.get(invocationId);
    if (waiting) {
      this.#forget(invocationId, waiting);
      return () => waiting.settle(completion);
    }
    return this.#settled.has(invocationId) ? "repeated" : "unknown";
  }

  /** The cell no longer waits for it (terminated, finished, or the session closed). False if it was settled already. */
  drop(invocationId: string): boolean {
    const waiting = this.#waiting.get(invocationId);
    if (!waiting) return false;
    this.#forget(invocationId, waiting);
    return true;
  }

  #forget(invocationId: string, waiting: Waiting): void {
    this.#waiting.delete(invocationId);
    this.#settled.add(invocationId);
    waiting.onSettled();
  }
}
