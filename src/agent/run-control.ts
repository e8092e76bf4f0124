// Steering a live run from outside: injected messages queue here and interrupt
// only the active model cycle or tool round, never the whole run.
import { interactionUpdate } from "../proto/frames.ts";
import type { AgentServerMessage } from "../proto/gen/agent/v1/agent_pb.ts";

export interface Injection {
  /** injection_id, or `user-message:<message_id>` for a runtime user message. */
  id: string;
  messageId: string;
  text: string;
  /** System context is model input only: not a user turn, not shown as one. */
  kind: "user" | "system";
}

export type RunPhase = "preparing" | "model" | "tools" | "finishing";

/** Thrown into a cycle that an injection interrupted; the run itself goes on. */
export class CycleInterrupted extends Error {
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

  get phase(): RunPhase {
    return this.#phase;
  }

  get hasQueued(): boolean {
    return this.#queue.length > 0;
  }

  /** Starts a model cycle or tool round; its signal fires on run cancel or injection. */
  begin(phase: "model" | "tools"): AbortSignal {
    this.#phase = phase;
    this.#cycle = new AbortController();
    return AbortSignal.any([this.runSignal, this.#cycle.signal]);
  }

  end(next: RunPhase = "preparing"): void {
    this.#cycle = null;
    this.#phase = next;
  }

  /** Queues an injection (announced at once) and interrupts the active cycle, if any. */
  inject(injection: Injection): void {
    this.#queue.push(injection);
    this.emit(
      interactionUpdate({
        case: "contextInjectionState",
        value: { injectionId: injection.id, state: { state: { case: "queued", value: {} } } },
      }),
    );
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
