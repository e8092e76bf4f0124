// What this isolate already knows of request id → conversation id, so a request's
// later appends and its RunSSE go straight to the conversation object instead of
// through the principal's router object (docs/architecture.md#routing). Safe to
// keep: a binding never changes while the router keeps it (it refuses a second
// one), and a cached route is forgotten an hour before the router may drop it,
// counted from the binding; so a cached route can be missing, never wrong.
// Bounded: least recently used out.
import { ROUTE_TTL_MS } from "./route-rules.ts";

const TTL_MS = ROUTE_TTL_MS - 60 * 60 * 1000;
const MAX_ENTRIES = 10_000;

interface Entry {
  conversationId: string;
  boundAtMs: number;
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
    if (this.#now() - entry.boundAtMs > TTL_MS) return undefined;
    this.#entries.set(key, entry); // most recently used last
    return entry.conversationId;
  }

  /** `boundAtMs`: when the router bound the route (its own clock, as it says). */
  set(principalId: string, requestId: string, conversationId: string, boundAtMs: number): void {
    const key = keyOf(principalId, requestId);
    this.#entries.delete(key);
    this.#entries.set(key, { conversationId, boundAtMs });
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
