// Per-isolate cache of user token checks, so the hot path (BidiAppend) costs no
// D1 round trip. An answer is kept at most 5 s from when its lookup started and
// never past the token's expiry, so a revoked, expired or removed token stops
// working within 5 s everywhere (docs/hosting.md#caching). last_used_at is
// written at most once a minute per token, after the response (waitUntil).
import type { TokenOwner } from "../store/token-rows.ts";

/** The contract's bound on how long a token check may be reused. */
const TTL_MS = 5_000;
const TOUCH_INTERVAL_MS = 60_000;
/** Enough for every live token of a large deployment; the oldest answer goes first. */
const MAX_ENTRIES = 10_000;

/** Where the cache reads through to (D1), and how it defers the last_used_at write. */
export interface TokenSource {
  lookup(tokenHash: string, nowMs: number): Promise<TokenOwner | undefined>;
  touch(tokenId: string, nowMs: number, intervalMs: number): Promise<void>;
  waitUntil(promise: Promise<unknown>): void;
}

interface Entry {
  owner: TokenOwner | undefined;
  validUntilMs: number;
  /** When this isolate last wrote (or read) last_used_at for the token. */
  touchedAtMs: number | null;
}

export class TokenCache {
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, { loading: Promise<Entry>; startedMs: number }>();

  constructor(
    private now: () => number = Date.now,
    private readonly maxEntries = MAX_ENTRIES,
  ) {}

  /** The owner of a live token, or undefined. */
  async resolve(tokenHash: string, source: TokenSource): Promise<TokenOwner | undefined> {
    const cached = this.#entries.get(tokenHash);
    const entry = cached && this.now() < cached.validUntilMs ? cached : await this.#refresh(tokenHash, source, cached);
    const owner = entry.owner;
    if (owner) this.#touch(entry, owner, source);
    return owner;
  }

  /** Drops what this isolate knows of a token at once (revoked here). */
  forgetToken(tokenId: string): void {
    for (const [hash, entry] of this.#entries) if (entry.owner?.tokenId === tokenId) this.#entries.delete(hash);
  }

  /** Drops every answer for a user (removed or changed here). */
  forgetUser(userId: string): void {
    for (const [hash, entry] of this.#entries) if (entry.owner?.userId === userId) this.#entries.delete(hash);
  }

  /** @internal Tests move time instead of sleeping. */
  setClock(now: () => number): void {
    this.now = now;
  }

  #refresh(tokenHash: string, source: TokenSource, previous: Entry | undefined): Promise<Entry> {
    const pending = this.#inflight.get(tokenHash);
    // Joining a lookup is only as good as its start: one begun 5 s ago may predate a revocation.
    if (pending && this.now() < pending.startedMs + TTL_MS) return pending.loading;
    const startedMs = this.now();
    const loading = source
      .lookup(tokenHash, startedMs)
      .then((owner) => {
        const entry: Entry = {
          owner,
          // Timed from the lookup's start: the row may have changed right after it was read.
          validUntilMs: Math.min(startedMs + TTL_MS, owner?.expiresAtMs ?? Number.POSITIVE_INFINITY),
          touchedAtMs: Math.max(previous?.touchedAtMs ?? 0, owner?.lastUsedAtMs ?? 0) || null,
        };
        this.#store(tokenHash, entry);
        return entry;
      })
      .finally(() => {
        if (this.#inflight.get(tokenHash)?.loading === loading) this.#inflight.delete(tokenHash);
      });
    this.#inflight.set(tokenHash, { loading, startedMs });
    return loading;
  }

  #store(tokenHash: string, entry: Entry): void {
    this.#entries.delete(tokenHash);
    this.#entries.set(tokenHash, entry);
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  #touch(entry: Entry, owner: TokenOwner, source: TokenSource): void {
    const now = this.now();
    if (entry.touchedAtMs !== null && now - entry.touchedAtMs < TOUCH_INTERVAL_MS) return;
    entry.touchedAtMs = now;
    source.waitUntil(
      source.touch(owner.tokenId, now, TOUCH_INTERVAL_MS).catch(() => {
        console.warn("byok-edge: could not record a token's last use");
      }),
    );
  }
}
