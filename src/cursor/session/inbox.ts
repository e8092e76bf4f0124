// Orders one request's appends by append_seqno. BidiAppends are concurrent HTTP
// requests, so arrival order is not protocol order: future seqnos wait for the
// gap to fill, duplicates and stale seqnos are dropped. What waits is bounded by a
// seqno window and by bytes (docs/protocol.md#limits).

export type InboxPush<T> =
  | { status: "released"; items: T[] }
  | { status: "buffered" }
  | { status: "duplicate" }
  | { status: "stale" }
  /** Waiting would pass the byte cap. */
  | { status: "overflow" }
  /** More than SEQNO_WINDOW ahead of the next expected seqno. */
  | { status: "too-far" };

/** An append may be at most this many seqnos ahead of the next expected one (so at most this many wait). */
export const SEQNO_WINDOW = 1024;

/** Appends held for one request (waiting for a gap, or parked on an ended request) are capped at this many bytes. */
export const REQUEST_HELD_MAX_BYTES = 32 * 1024 * 1024;

/** …and for all requests of one conversation object together. */
export const OBJECT_HELD_MAX_BYTES = 64 * 1024 * 1024;

export class OrderedInbox<T> {
  #next = 0;
  #heldBytes = 0;
  readonly #pending = new Map<number, { item: T; bytes: number }>();

  /** The seqno that is released next. */
  get next(): number {
    return this.#next;
  }

  /** Bytes of the appends waiting for a gap. */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /** `room`: how many more bytes may wait (the caller's caps). */
  push(seqno: number, item: T, bytes = 0, room = Number.POSITIVE_INFINITY): InboxPush<T> {
    if (seqno < this.#next) return { status: "stale" };
    if (seqno > this.#next + SEQNO_WINDOW) return { status: "too-far" };
    if (this.#pending.has(seqno)) return { status: "duplicate" };
    if (seqno > this.#next) {
      if (bytes > room) return { status: "overflow" };
      this.#pending.set(seqno, { item, bytes });
      this.#heldBytes += bytes;
      return { status: "buffered" };
    }
    const items = [item];
    this.#next += 1;
    for (let queued = this.#pending.get(this.#next); queued !== undefined; queued = this.#pending.get(this.#next)) {
      this.#pending.delete(this.#next);
      this.#heldBytes -= queued.bytes;
      items.push(queued.item);
      this.#next += 1;
    }
    return { status: "released", items };
  }

  /** The request ended: what waits for a gap will never be wanted. */
  dropWaiting(): void {
    this.#pending.clear();
    this.#heldBytes = 0;
  }
}
