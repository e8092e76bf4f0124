// Bytes of BidiAppend messages the edge holds while their request waits for its run_request
// (docs/protocol.md#limits): the router bounds how many calls wait, this bounds what they
// hold, per principal and per isolate, so a flood of large appends for request ids that are
// never bound is refused at once instead of filling memory for 30 s.

/** @internal What one principal's waiting appends may hold in one isolate (tests read it). */
export const WAITING_PRINCIPAL_MAX_BYTES = 32 * 1024 * 1024;
/** What every principal's waiting appends may hold in one isolate together. */
const WAITING_ISOLATE_MAX_BYTES = 256 * 1024 * 1024;

export class WaitingBytes {
  readonly #byPrincipal = new Map<string, number>();
  #total = 0;

  constructor(
    private readonly principalMax = WAITING_PRINCIPAL_MAX_BYTES,
    private readonly isolateMax = WAITING_ISOLATE_MAX_BYTES,
  ) {}

  /** Holds `bytes` for `principal`; the release, or why not: which cap it would pass. */
  take(principal: string, bytes: number): { release: () => void } | { over: "principal" | "isolate"; maxBytes: number } {
    const held = this.#byPrincipal.get(principal) ?? 0;
    if (held + bytes > this.principalMax) return { over: "principal", maxBytes: this.principalMax };
    if (this.#total + bytes > this.isolateMax) return { over: "isolate", maxBytes: this.isolateMax };
    this.#byPrincipal.set(principal, held + bytes);
    this.#total += bytes;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#total -= bytes;
        const left = (this.#byPrincipal.get(principal) ?? bytes) - bytes;
        if (left > 0) this.#byPrincipal.set(principal, left);
        else this.#byPrincipal.delete(principal);
      },
    };
  }
}
