// One observation of a cell (docs/code-mode.md#observers): the initial Execute, or a
// Wait. It ends with the cell's next response: a yield (its timer, `yield_control()`, or
// its preempt signal), the result, or the termination; or it is retired by its cancel
// signal. The cell decides what each of those means; this holds the timer and signals.
import { WaitCancelledError } from "./engine-errors.ts";
import type { RuntimeResponse } from "./engine-types.ts";

export interface ObserverSignals {
  /** YieldObservation: end this observation now with what the cell has so far. */
  preempt?: AbortSignal;
  /** CancelWait: retire this observation without a response. */
  cancel?: AbortSignal;
}

export interface ObserverHooks {
  /** The timer fired or the preempt signal fired. */
  yield(observer: Observer): void;
  /** The cancel signal fired. */
  cancel(observer: Observer): void;
}

export class Observer {
  readonly response: Promise<RuntimeResponse>;
  readonly #timeoutMs: number;
  readonly #signals: ObserverSignals;
  #hooks: ObserverHooks | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #settled = false;
  readonly #outcome = Promise.withResolvers<RuntimeResponse>();
  readonly #onPreempt = () => this.#hooks?.yield(this);
  readonly #onCancel = () => this.#hooks?.cancel(this);

  constructor(timeoutMs: number, signals: ObserverSignals = {}) {
    this.#timeoutMs = timeoutMs;
    this.#signals = signals;
    this.response = this.#outcome.promise;
    // Nobody may be listening any more (the caller went away): not an unhandled rejection.
    this.response.catch(() => {});
  }

  /** Starts listening to the signals; one that already fired is acted on at once. */
  listen(hooks: ObserverHooks): void {
    this.#hooks = hooks;
    const { preempt, cancel } = this.#signals;
    if (cancel?.aborted) this.#onCancel();
    else if (preempt?.aborted) this.#onPreempt();
    else {
      preempt?.addEventListener("abort", this.#onPreempt, { once: true });
      cancel?.addEventListener("abort", this.#onCancel, { once: true });
    }
  }

  /** Starts the yield timer (when the cell has started). */
  arm(): void {
    if (this.#settled || this.#hooks === undefined || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.#hooks?.yield(this), this.#timeoutMs);
  }

  /** From now on only settle() or fail() end this observation (a termination is under way). */
  quiet(): void {
    this.#detach();
  }

  settle(response: RuntimeResponse): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#detach();
    this.#outcome.resolve(response);
  }

  fail(error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#detach();
    this.#outcome.reject(error);
  }

  cancelled(): void {
    this.fail(new WaitCancelledError());
  }

  #detach(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#hooks = undefined;
    this.#signals.preempt?.removeEventListener("abort", this.#onPreempt);
    this.#signals.cancel?.removeEventListener("abort", this.#onCancel);
  }
}
