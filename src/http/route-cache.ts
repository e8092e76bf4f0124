// What this isolate already knows of request id → conversation id, so a request's
// later appends and its RunSSE go straight to the conversation object instead of
// through the principal's router object (docs/architecture.md#routing). Safe to
// keep: a binding never changes once made (the router refuses a second one), so a
// cached route can only be missing, never wrong. Bounded: least recently used out.

/** Routes live for a turn or a few; the router itself drops them after a day. */
const TTL_MS = 24 * 60 * 60 * 1000;
const MAX_ENTRIES = 10_000;

interface Entry {
  conversationId: string;
  knownAtMs: number;
}

export class RouteCache {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(options: { maxEntries?: number; now?: () => number } = {}) {
    this.#maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.#now = options.now ?? Date.now;
  }

  get(principalId: string, requestId: string): string | undefined {
    const key = keyOf(principalId, requestId);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (this.#now() - entry.knownAtMs > TTL_MS) return undefined;
    this.#entries.set(key, entry); // most recently used last
    return entry.conversationId;
  }

  set(principalId: string, requestId: string, conversationId: string): void {
    const key = keyOf(principalId, requestId);
    this.#entries.delete(key);
    this.#entries.set(key, { conversationId, knownAtMs: this.#now() });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}

function keyOf(principalId: string, requestId: string): string {
  return `${principalId.length}:${principalId}:${requestId}`;
}
