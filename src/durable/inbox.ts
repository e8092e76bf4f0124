// Orders one request's appends by append_seqno. BidiAppends are concurrent HTTP
// requests, so arrival order is not protocol order: future seqnos wait for the
// gap to fill, duplicates and stale seqnos are dropped.

export type InboxPush<T> =
  | { status: "released"; items: T[] }
  | { status: "buffered" }
  | { status: "duplicate" }
  | { status: "stale" }
  | { status: "overflow" };

/** Upper bound on buffered out-of-order appends for one request. */
export const INBOX_MAX_BUFFERED = 1024;

export class OrderedInbox<T> {
  #next = 0;
  readonly #pending = new Map<number, T>();

  push(seqno: number, item: T): InboxPush<T> {
    if (seqno < this.#next) return { status: "stale" };
    if (this.#pending.has(seqno)) return { status: "duplicate" };
    if (seqno > this.#next) {
      if (this.#pending.size >= INBOX_MAX_BUFFERED) return { status: "overflow" };
      this.#pending.set(seqno, item);
      return { status: "buffered" };
    }
    const items = [item];
    this.#next += 1;
    for (let queued = this.#pending.get(this.#next); queued !== undefined; queued = this.#pending.get(this.#next)) {
      this.#pending.delete(this.#next);
      items.push(queued);
      this.#next += 1;
    }
    return { status: "released", items };
  }
}
