// A RunSSE body that starts before its conversation is known: a client heartbeat
// that arrives before seqno 0 is answered on it at once (docs/protocol.md#heartbeats),
// then the conversation's own stream follows, or one end-stream if none comes.
import { HEARTBEAT_FRAME } from "../../proto/frames.ts";
import { AppError } from "../../core/errors.ts";
import { encodeEndStream } from "../../proto/connect/end-stream.ts";

export class EarlyHeartbeats {
  #controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  #beatsBeforeStart = 0;
  #signalFirst: () => void = () => {};
  /** Settles at the first heartbeat. */
  readonly first = new Promise<void>((resolve) => {
    this.#signalFirst = resolve;
  });

  /** A client heartbeat arrived for this request while its route was unknown. */
  beat(): void {
    this.#signalFirst();
    if (this.#controller) this.#controller.enqueue(HEARTBEAT_FRAME);
    else this.#beatsBeforeStart += 1;
  }

  /**
   * The body: the heartbeats so far and to come, then what `next` yields: the
   * conversation's stream (opened only if the client is still there) or the error to end with.
   */
  stream(next: Promise<{ open: () => Promise<ReadableStream<Uint8Array>> } | { error: AppError }>): ReadableStream<Uint8Array> {
    let cancelled = false;
    let inner: ReadableStreamDefaultReader<Uint8Array> | undefined;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        for (; this.#beatsBeforeStart > 0; this.#beatsBeforeStart--) controller.enqueue(HEARTBEAT_FRAME);
        const follow = async () => {
          const route = await next;
          this.#controller = undefined; // from here the conversation sends its own heartbeats
          if (cancelled) return;
          if ("error" in route) {
            controller.enqueue(encodeEndStream(route.error));
            controller.close();
            return;
          }
          inner = (await route.open()).getReader();
          // The client may have left while the conversation's stream was opening.
          if (cancelled) {
            await inner.cancel();
            return;
          }
          for (;;) {
            const { value, done } = await inner.read();
            if (done) break;
            controller.enqueue(value);
          }
          controller.close();
        };
        follow().catch(() => {
          // The router or the conversation object failed before its stream began.
          if (cancelled) return;
          controller.enqueue(encodeEndStream(new AppError("unavailable", "the conversation could not be reached; send the message again")));
          controller.close();
        });
      },
      cancel: async (reason) => {
        cancelled = true;
        this.#controller = undefined;
        await inner?.cancel(reason);
      },
    });
  }
}
