// Image data of stored messages, kept in memory by message seq: a message's images
// never change once stored, and every model cycle reads the whole history, so
// without it each cycle would read (and join) every image's rows again.

/** Base64 characters kept at most (about 24 MB of image bytes); the least recently read go first. */
const CACHE_MAX_CHARS = 32_000_000;

export class ImageCache {
  /** seq → the data of each image of that message; Map order is the order of last use. */
  readonly #bySeq = new Map<number, readonly string[]>();
  #chars = 0;

  get(seq: number): readonly string[] | undefined {
    const data = this.#bySeq.get(seq);
    if (data) {
      this.#bySeq.delete(seq);
      this.#bySeq.set(seq, data);
    }
    return data;
  }

  set(seq: number, data: readonly string[]): void {
    const chars = data.reduce((n, d) => n + d.length, 0);
    if (chars > CACHE_MAX_CHARS || this.#bySeq.has(seq)) return;
    this.#bySeq.set(seq, data);
    this.#chars += chars;
    for (const [oldest, old] of this.#bySeq) {
      if (this.#chars <= CACHE_MAX_CHARS) break;
      this.#bySeq.delete(oldest);
      this.#chars -= old.reduce((n, d) => n + d.length, 0);
    }
  }
}
