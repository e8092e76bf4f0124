// The output of one request (one RunSSE): every frame is kept and replayed to a
// late, reconnecting or second subscriber, then live frames follow, then exactly
// one end-stream, after which every subscriber's body closes.
//
// A subscriber's body is pulled: the frames written since its reader last asked
// go out as one chunk. A reader that keeps up gets one frame per chunk; one that
// falls behind (a busy isolate, a slow client) gets them joined, which costs the
// stream machinery one hop instead of one per frame (docs/benchmarks.md#cpu).
import type { AppError } from "../../core/errors.ts";
import { encodeEndStream } from "../../proto/connect/end-stream.ts";
import { concatBytes } from "../../core/bytes.ts";

/** Frames are joined up to this size per chunk (a long replay goes out in pieces, not one copy). */
const JOINED_MAX_BYTES = 1024 * 1024;

class Subscriber {
  #queued: Uint8Array[] = [];
  #closing = false;
  #cancelled = false;
  #wake: (() => void) | undefined;

  constructor(readonly id: string) {}

  write(frame: Uint8Array): void {
    if (this.#closing) return;
    this.#queued.push(frame);
    this.#wakeReader();
  }

  /** Closes the body after whatever is queued. */
  close(): void {
    this.#closing = true;
    this.#wakeReader();
  }

  /** The reader went away: nothing queued is wanted any more. */
  cancel(): void {
    this.#cancelled = true;
    this.#queued = [];
    this.close();
  }

  /** The reader asks for more: everything queued as one chunk, waiting for a write if nothing is. */
  async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (this.#queued.length === 0 && !this.#closing) await new Promise<void>((resolve) => (this.#wake = resolve));
    if (this.#cancelled) return;
    if (this.#queued.length > 0) {
      let count = 0;
      let bytes = 0;
      while (count < this.#queued.length && (count === 0 || bytes + this.#queued[count]!.byteLength <= JOINED_MAX_BYTES)) {
        bytes += this.#queued[count]!.byteLength;
        count++;
      }
      const frames = this.#queued.splice(0, count);
      controller.enqueue(frames.length === 1 ? frames[0]! : concatBytes(frames));
    }
    if (this.#closing && this.#queued.length === 0) controller.close();
  }

  #wakeReader(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

export interface Subscription {
  /** Lets the edge report a disconnect at once (see unsubscribe). */
  id: string;
  stream: ReadableStream<Uint8Array>;
}

export class Outbox {
  #frames: Uint8Array[] = [];
  /** Frames a finished run no longer needs in the replay (blob transfers the client answered). */
  readonly #droppable = new Set<Uint8Array>();
  readonly #subscribers = new Set<Subscriber>();
  /** Set once the end-stream frame is written. */
  #ended = false;
  #lastWriteAt = Date.now();
  #onDetach: (remaining: number) => void;

  constructor(onDetach: (remaining: number) => void = () => {}) {
    this.#onDetach = onDetach;
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** ms since the last frame was written (for idle heartbeats). */
  idleMs(now = Date.now()): number {
    return now - this.#lastWriteAt;
  }

  /**
   * Appends a frame to the replay log and sends it to every subscriber.
   * `droppable` frames leave the replay log at `dropFinished()`.
   */
  push(frame: Uint8Array, droppable = false): void {
    if (this.#ended) return;
    this.#frames.push(frame);
    if (droppable) this.#droppable.add(frame);
    this.#broadcast(frame);
  }

  /**
   * Forgets droppable frames once their run is over: a reconnecting client has
   * nothing left to answer, and blob data is the bulk of a long run's replay.
   */
  dropFinished(): void {
    if (this.#droppable.size === 0) return;
    this.#frames = this.#frames.filter((f) => !this.#droppable.has(f));
    this.#droppable.clear();
  }

  /** Sends a frame to current subscribers only (heartbeats are not worth replaying). */
  pushTransient(frame: Uint8Array): void {
    if (this.#ended) return;
    this.#broadcast(frame);
  }

  /** Writes the single end-stream frame and closes every subscriber. Later calls do nothing. */
  end(error?: AppError): boolean {
    if (this.#ended) return false;
    const frame = encodeEndStream(error);
    this.#frames.push(frame);
    this.#ended = true;
    for (const sub of this.#subscribers) {
      sub.write(frame);
      sub.close();
    }
    this.#subscribers.clear();
    return true;
  }

  subscribe(): Subscription {
    const subscriber = new Subscriber(crypto.randomUUID());
    for (const frame of this.#frames) subscriber.write(frame);
    if (this.#ended) subscriber.close();
    else this.#subscribers.add(subscriber);
    const stream = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => subscriber.pull(controller),
        cancel: () => {
          subscriber.cancel();
          if (this.#subscribers.delete(subscriber)) this.#onDetach(this.#subscribers.size);
        },
      },
      { highWaterMark: 0 },
    );
    return { id: subscriber.id, stream };
  }

  /**
   * Detaches a subscriber whose client went away. A cancel does not cross the RPC
   * boundary by itself, so the edge says so (its queued frames would wait for a reader).
   */
  unsubscribe(id: string): void {
    for (const sub of this.#subscribers) {
      if (sub.id !== id) continue;
      this.#subscribers.delete(sub);
      sub.close();
      this.#onDetach(this.#subscribers.size);
    }
  }

  #broadcast(frame: Uint8Array): void {
    this.#lastWriteAt = Date.now();
    for (const sub of this.#subscribers) sub.write(frame);
  }
}
