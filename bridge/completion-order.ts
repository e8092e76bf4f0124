// A CompleteToolCall's reply reaches the client before what the completion let its cell
// do next (its outcome on the Execute stream, its next ToolCall, a notification), as from
// the reference host. Upstream, byok-edge hands the output to the cell once its reply is
// on its way, but from there the reply is a new HTTP response and the cell's next message
// one on a stream already open, and on the way to the client (wrangler dev's proxy, this
// bridge) the stream's message often won. So while a session's CompleteToolCall is in
// flight, the messages of that session's streams wait here until its reply is out
// (docs/code-mode.md#grpc-bridge).

/** A reply that never gets out (a stalled client) holds a session's messages at most this long. */
const HOLD_MAX_MS = 1_000;

export class CompletionOrder {
  readonly #inFlight = new Map<string, Set<Promise<void>>>();

  /** A CompleteToolCall of the session goes upstream; `out` resolves once its reply is out. */
  track(sessionId: string, out: Promise<void>): void {
    let calls = this.#inFlight.get(sessionId);
    if (!calls) {
      calls = new Set();
      this.#inFlight.set(sessionId, calls);
    }
    const held = calls;
    const call = out.then(() => {
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
      if (calls && calls.size > 0) await atMost(Promise.all(calls), HOLD_MAX_MS);
      yield message;
    }
  }
}

async function atMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([work, timeout]);
  clearTimeout(timer);
}
