// The output of one request (one RunSSE): every frame is kept and replayed to a
// late, reconnecting or second subscriber, then live frames follow, then exactly
// one end-stream, after which every subscriber's body closes.
import type { AppError } from "../proto/connect/error.ts";
import { encodeEndStream } from "../proto/connect/end-stream.ts";

interface Subscriber {
  id: string;
  controller: ReadableStreamDefaultController<Uint8Array>;
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
      safeEnqueue(sub, frame);
      safeClose(sub);
    }
    this.#subscribers.clear();
    return true;
  }

  subscribe(): Subscription {
    const id = crypto.randomUUID();
    let subscriber: Subscriber | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start: (controller) => {
        subscriber = { id, controller };
        for (const frame of this.#frames) controller.enqueue(frame);
        if (this.#ended) {
          controller.close();
          return;
        }
        this.#subscribers.add(subscriber);
      },
      cancel: () => {
        if (subscriber && this.#subscribers.delete(subscriber)) this.#onDetach(this.#subscribers.size);
      },
    });
    return { id, stream };
  }

  /**
   * Detaches a subscriber whose client went away. A stream cancelled across an
   * RPC boundary is only noticed here at the next write, so the edge says so.
   */
  unsubscribe(id: string): void {
    for (const sub of this.#subscribers) {
      if (sub.id !== id) continue;
      this.#subscribers.delete(sub);
      safeClose(sub);
      this.#onDetach(this.#subscribers.size);
    }
  }

  #broadcast(frame: Uint8Array): void {
    this.#lastWriteAt = Date.now();
    for (const sub of this.#subscribers) {
      if (!safeEnqueue(sub, frame)) {
        this.#subscribers.delete(sub);
        this.#onDetach(this.#subscribers.size);
      }
    }
  }
}

function safeEnqueue(sub: Subscriber, frame: Uint8Array): boolean {
  try {
    sub.controller.enqueue(frame);
    return true;
  } catch {
    // The reader went away between our check and the write: treat it as detached.
    return false;
  }
}

function safeClose(sub: Subscriber): void {
  try {
    sub.controller.close();
  } catch {
    // Already closed or errored by the reader; nothing left to close.
  }
}
