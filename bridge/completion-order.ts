// A CompleteToolCall's reply reaches the client before what the completion let its cell
// do next (its outcome on the Execute stream, its next ToolCall, a notification), as from
// the reference host. Upstream, byok-edge hands the output to the cell once its reply is
// on its way, but from there the reply is a new HTTP response and the cell's next message
// one on a stream already open, and on the way to the client (wrangler dev's proxy, this
// bridge) the stream's message often won. So while a session's CompleteToolCall is in
// flight, the messages of that session's streams wait here until its reply is out
// (docs/code-mode.md#grpc-bridge).

/**
 * A reply that never gets out (a stalled client) holds its session's messages at most this long
 * after its CompleteToolCall went upstream. The cap is per completion, not per message: while one
 * reply is slow (an 8 MiB result), the messages behind it all go once its cap has passed, not one
 * cap after another.
 */
const HOLD_MAX_MS = 1_000;

/** Calls `run` once, `ms` from now, unless the returned function is called first. */
export type Timer = (run: () => void, ms: number) => () => void;

const realTimer: Timer = (run, ms) => {
  const timer = setTimeout(run, ms);
  return () => clearTimeout(timer);
};

export class CompletionOrder {
  /** Per session, its completions in flight: each settles when its reply is out or its cap has passed. */
  readonly #inFlight = new Map<string, Set<Promise<void>>>();
  readonly #timer: Timer;

  /** `timer` starts each completion's cap; tests pass one they fire themselves. */
  constructor(timer: Timer = realTimer) {
    this.#timer = timer;
  }

  /** A CompleteToolCall of the session goes upstream; `out` resolves once its reply is out. */
  track(sessionId: string, out: Promise<void>): void {
    let calls = this.#inFlight.get(sessionId);
    if (!calls) {
      calls = new Set();
      this.#inFlight.set(sessionId, calls);
    }
    const held = calls;
    // Its deadline is fixed now: messages that arrive after it has passed are not held for it.
    const over = Promise.withResolvers<void>();
    const cancel = this.#timer(over.resolve, HOLD_MAX_MS);
    void out.then(over.resolve);
    const call = over.promise.then(() => {
      cancel();
      held.delete(call);
      if (held.size === 0 && this.#inFlight.get(sessionId) === held) this.#inFlight.delete(sessionId);
    });
    held.add(call);
  }

  /** A stream's messages, each after the replies of its session's CompleteToolCalls in flight when it arrived. */
  async *inOrder<T>(messages: AsyncIterable<T>, sessionOf: (message: T) => string | undefined): AsyncIterable<T> {
    let sessionId: string | undefined;
    for await (const message of messages) {
      sessionId = sessionOf(message) ?? sessionId;
      const calls = sessionId === undefined ? undefined : this.#inFlight.get(sessionId);
      if (calls && calls.size > 0) await Promise.all(calls);
      yield message;
    }
  }

  /** @internal How many sessions have a completion in flight (tests: nothing is kept once they are over). */
  get sessionsHeld(): number {
    return this.#inFlight.size;
  }
}
