// Steering a live run from outside: injected messages queue here and interrupt
// only the active model cycle or tool round, never the whole run. `offer` is the
// one place that decides what happens to input arriving mid-run.
import { updates } from "../../proto/frames.ts";
import type { AgentServerMessage, SelectedImage } from "../../proto/gen/agent/v1/agent_pb.ts";
import type { ContextSource } from "../context/context-source.ts";

export interface Injection {
  /** injection_id, or `user-message:<message_id>` for a runtime user message. */
  id: string;
  messageId: string;
  text: string;
  /** System context is model input only: not a user turn, not shown as one. */
  kind: "user" | "system";
  /** The request context that came with it; it enters the history before the message. */
  context?: ContextSource;
  /** The images attached to a user message (selected_context.selected_images). */
  images?: readonly SelectedImage[];
}

type RunPhase = "preparing" | "model" | "tools" | "compaction" | "finishing";

/**
 * What became of offered input: `injected` into this run, `queued` for the next run
 * (this one takes no more input), or `interrupt`: stop this run, the input opens the next.
 */
export type Offer = "injected" | "queued" | "interrupt";

/** Thrown into a cycle that an injection interrupted; the run itself goes on. */
class CycleInterrupted extends Error {
  override readonly name = "CycleInterrupted";
  constructor() {
    super("interrupted by injected context");
  }
}

export class RunControl {
  readonly #queue: Injection[] = [];
  #cycle: AbortController | null = null;
  #phase: RunPhase = "preparing";

  constructor(
    readonly runSignal: AbortSignal,
    readonly emit: (message: AgentServerMessage) => void,
  ) {}

  get hasQueued(): boolean {
    return this.#queue.length > 0;
  }

  /** Starts a model cycle, tool round or compaction; its signal fires on run cancel or injection. */
  begin(phase: "model" | "tools" | "compaction"): AbortSignal {
    this.#phase = phase;
    this.#cycle = new AbortController();
    return AbortSignal.any([this.runSignal, this.#cycle.signal]);
  }

  /** Ends the cycle that `begin` started. */
  end(): void {
    this.#cycle = null;
    this.#phase = "preparing";
  }

  /** From here on the run takes no more input (the fixed tail, or a summary). */
  finishing(): void {
    this.#cycle = null;
    this.#phase = "finishing";
  }

  /**
   * Offers input that arrived mid-run; see `Offer`. `stopsTools`: a runtime user message
   * (not injected context) stops a tool round instead of joining it.
   */
  offer(injection: Injection, options: { stopsTools: boolean }): Offer {
    // A run that is cancelled but not finished yet takes no more input.
    if (this.runSignal.aborted || this.#phase === "finishing") return "queued";
    // A newer message while tools run on the client stops the turn.
    if (this.#phase === "tools" && options.stopsTools) return "interrupt";
    this.inject(injection);
    return "injected";
  }

  /**
   * Queues an injection (announced at once) and interrupts the active cycle, if any. A compaction
   * gives way to the user's message only: injected context just waits for the summary.
   */
  inject(injection: Injection): void {
    this.#queue.push(injection);
    this.emit(updates.injectionQueued(injection.id));
    if (this.#phase === "compaction" && injection.kind === "system") return;
    this.#cycle?.abort(new CycleInterrupted());
  }

  /** Whether an error only means "this cycle was interrupted, go on". */
  interrupted(signal: AbortSignal): boolean {
    return signal.aborted && !this.runSignal.aborted;
  }

  take(): Injection[] {
    return this.#queue.splice(0);
  }
}
