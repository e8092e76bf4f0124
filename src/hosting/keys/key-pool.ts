// The rules of a pool of keys behind one model (docs/providers.md#keys-behind-one-model),
// held by the key pool object of each team so every isolate sees the same spread and
// cool-downs. Spread is smooth weighted round robin: over any run of calls each usable key
// gets its share to within one call, and the keys interleave rather than come in bursts.
import type { KeyOutcome, KeyPick } from "../../provider/model-keys.ts";

/** A key as the pool sees it: no secret, only who it is, its weight and its version. */
export interface PoolKey {
  id: string;
  weight: number;
  version: string;
}

/** A stored credential's key version: when it was last written (a rotation writes it). */
export function storedKeyVersion(updatedAtMs: number): string {
  return String(updatedAtMs);
}

/** A key's mark after its provider refused it, kept until the key is written again (a new version). */
export interface BrokenMark {
  version: string;
  atMs: number;
  /** Its HTTP status, if the provider sent one. */
  status?: number;
}

interface KeyState {
  /** Smooth weighted round robin's running score. */
  current: number;
  cooledUntilMs: number;
  /** 429s without Retry-After in a row: each doubles the next backoff. */
  streak: number;
}

/** The backoff of a 429 without Retry-After: 1 s, doubling per 429 in a row, at most a minute. */
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
/** @internal A broken key is tried again this long after its provider refused it (exported for the tests' clock). */
export const BROKEN_RETRY_MS = 10 * 60_000;
/** How long a key on probation is left alone for its one call to report. */
const PROBATION_MS = 2 * 60_000;
/** A pool keeps state for this many models; the least recently used goes first. */
const POOLS_MAX = 1_000;

export class KeyPools {
  readonly #pools = new Map<string, Map<string, KeyState>>();

  /**
   * The next key of `pool` among `keys`, skipping those cooling down and broken ones, except that
   * a key broken `BROKEN_RETRY_MS` ago is tried once more (on probation) before any other: its
   * provider may have taken it back, and only a call can tell.
   */
  pick(pool: string, keys: readonly PoolKey[], nowMs: number, brokenAt: (key: PoolKey) => number | undefined): KeyPick {
    const states = this.#states(pool);
    let soonest = Number.POSITIVE_INFINITY;
    const usable: { key: PoolKey; state: KeyState }[] = [];
    for (const key of keys) {
      const atMs = brokenAt(key);
      if (atMs !== undefined && nowMs - atMs >= BROKEN_RETRY_MS && stateOf(states, key.id).cooledUntilMs <= nowMs) {
        // One probation call at a time: the key waits as if cooled until it reports.
        stateOf(states, key.id).cooledUntilMs = nowMs + PROBATION_MS;
        return { kind: "key", id: key.id, probation: true };
      }
      if (atMs !== undefined) continue;
      const state = stateOf(states, key.id);
      if (state.cooledUntilMs > nowMs) soonest = Math.min(soonest, state.cooledUntilMs);
      else usable.push({ key, state });
    }
    if (usable.length === 0) return Number.isFinite(soonest) ? { kind: "cooling", retryAfterMs: soonest - nowMs } : { kind: "broken" };
    let total = 0;
    let best = usable[0]!;
    for (const entry of usable) {
      entry.state.current += entry.key.weight;
      total += entry.key.weight;
      if (entry.state.current > best.state.current) best = entry;
    }
    best.state.current -= total;
    return { kind: "key", id: best.key.id };
  }

  /** A 429 cools the key for its Retry-After, or for a backoff that grows while 429s follow each other. */
  cool(pool: string, keyId: string, outcome: Extract<KeyOutcome, { kind: "rate_limited" }>, nowMs: number): void {
    const state = stateOf(this.#states(pool), keyId);
    // A 429 while the last backoff is still recent is one more in a row.
    const recent = state.streak > 0 && nowMs < state.cooledUntilMs + backoffMs(state.streak);
    state.streak = recent ? state.streak + 1 : 1;
    const waitMs = outcome.retryAfterMs ?? backoffMs(state.streak);
    state.cooledUntilMs = Math.max(state.cooledUntilMs, nowMs + waitMs);
  }

  /** A key's probation is over (it answered, or was refused and marked again): no longer held back for it. */
  release(pool: string, keyId: string): void {
    const state = this.#pools.get(pool)?.get(keyId);
    if (state) state.cooledUntilMs = 0;
  }

  #states(pool: string): Map<string, KeyState> {
    let states = this.#pools.get(pool);
    if (states) this.#pools.delete(pool);
    else states = new Map();
    this.#pools.set(pool, states);
    while (this.#pools.size > POOLS_MAX) this.#pools.delete(this.#pools.keys().next().value!);
    return states;
  }
}

function stateOf(states: Map<string, KeyState>, id: string): KeyState {
  let state = states.get(id);
  if (!state) {
    state = { current: 0, cooledUntilMs: 0, streak: 0 };
    states.set(id, state);
  }
  return state;
}

function backoffMs(streak: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, streak - 1));
}
