// The observations in flight (an Execute until its first outcome, a Wait until it
// returns) by the client's ids, and what YieldObservation and CancelWait do to
// them: end one early with Yielded, or retire a Wait as cancelled. A yield or
// cancel for an id not seen yet is remembered for the observation that will
// carry it; one for an observation already over does nothing (docs/code-mode.md#observers).
import { AppError } from "../../core/errors.ts";
import { RememberedIds } from "./remembered-ids.ts";

export type ObservationKind = "execution" | "wait";

interface Active {
  preempt: AbortController;
  cancel: AbortController;
  /** Resolves once the observation returned. */
  over: Promise<void>;
  end(): void;
}

export interface Observation {
  preempt: AbortSignal;
  cancel: AbortSignal;
  /** Cancelled before it began (an early CancelWait). */
  cancelledEarly: boolean;
  end(): void;
}

export class Observations {
  readonly #used: Record<ObservationKind, RememberedIds> = { execution: new RememberedIds(), wait: new RememberedIds() };
  readonly #earlyYields: Record<ObservationKind, RememberedIds> = { execution: new RememberedIds(), wait: new RememberedIds() };
  readonly #earlyCancels = new RememberedIds();
  readonly #active: Record<ObservationKind, Map<string, Active>> = { execution: new Map(), wait: new Map() };

  /** Takes the id (already_exists if it was used) and starts its observation. */
  begin(kind: ObservationKind, id: string): Observation {
    if (this.#used[kind].has(id)) throw new AppError("already_exists", `code-mode ${kind} ID \`${id}\` was reused`);
    this.#used[kind].add(id);
    const preempt = new AbortController();
    const cancel = new AbortController();
    if (this.#earlyYields[kind].take(id)) preempt.abort();
    const cancelledEarly = kind === "wait" && this.#earlyCancels.take(id);
    const over = Promise.withResolvers<void>();
    const end = () => {
      if (this.#active[kind].get(id) === active) this.#active[kind].delete(id);
      over.resolve();
    };
    const active: Active = { preempt, cancel, over: over.promise, end };
    this.#active[kind].set(id, active);
    return { preempt: preempt.signal, cancel: cancel.signal, cancelledEarly, end };
  }

  /** The observation was refused before it took anything (a Workers limit): its id may be used again. */
  release(kind: ObservationKind, id: string): void {
    this.#used[kind].take(id);
  }

  /** YieldObservation: the observation returns Yielded now, or as soon as it begins. */
  yield(kind: ObservationKind, id: string): void {
    const active = this.#active[kind].get(id);
    if (active) active.preempt.abort();
    else if (!this.#used[kind].has(id)) this.#earlyYields[kind].add(id);
  }

  /** CancelWait: resolves once that Wait has returned; a later Wait with this id fails as cancelled. */
  async cancelWait(id: string): Promise<void> {
    const active = this.#active.wait.get(id);
    if (active) {
      active.cancel.abort();
      await active.over;
    } else if (!this.#used.wait.has(id)) {
      this.#earlyCancels.add(id);
    }
  }
}
