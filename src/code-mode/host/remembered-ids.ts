// A bounded set of ids, oldest forgotten first: used execution and wait ids
// (reuse is already_exists), early yields and cancels, settled tool invocations.
// The bound keeps a long session's memory flat; an id older than the bound is forgotten.

const REMEMBERED_IDS_MAX = 4096;

export class RememberedIds {
  readonly #ids = new Set<string>();
  readonly #max: number;

  constructor(max = REMEMBERED_IDS_MAX) {
    this.#max = max;
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  add(id: string): void {
    this.#ids.delete(id);
    this.#ids.add(id);
    if (this.#ids.size > this.#max) this.#ids.delete(this.#ids.values().next().value as string);
  }

  /** Whether the id was there; it is not any more. */
  take(id: string): boolean {
    return this.#ids.delete(id);
  }
}
