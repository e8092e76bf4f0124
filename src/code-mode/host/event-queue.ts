// The messages of one server stream (the lease's events, one subscription's tool
// calls), pushed by the session and read by the stream's handler: in order, then
// an end once closed; reading stops when the reader's signal aborts.

type Waiter = () => void;

export class EventQueue<T> {
  readonly #items: T[] = [];
  #closed = false;
  #waiter: Waiter | undefined;

  get closed(): boolean {
    return this.#closed;
  }

  /** False once closed: the message is dropped. */
  push(item: T): boolean {
    if (this.#closed) return false;
    this.#items.push(item);
    this.#wake();
    return true;
  }

  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** Messages not read yet. */
  get pending(): number {
    return this.#items.length;
  }

  /** Every message until the queue is closed (and drained) or the signal aborts. */
  async *read(signal: AbortSignal): AsyncGenerator<T> {
    const onAbort = () => this.#wake();
    signal.addEventListener("abort", onAbort);
    try {
      for (;;) {
        if (signal.aborted) return;
        const item = this.#items.shift();
        if (item !== undefined) {
          yield item;
          continue;
        }
        if (this.#closed) return;
        await new Promise<void>((resolve) => {
          this.#waiter = resolve;
        });
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }
}
