// What a team's key pool object does with a pick and a report (docs/providers.md#keys-behind-one-model):
// the spread and cool-downs live in memory (they last seconds to a minute; an object that
// restarts starts them afresh), the broken marks in the object's storage, and a stored
// credential's mark also in D1, where the credentials API and the dashboard show it.
import { errorKind } from "../../core/log-safe.ts";
import type { KeyOutcome, KeyPick } from "../../provider/model-keys.ts";
import { limitsNow } from "../limits/clock.ts";
import { d1 } from "../store/db.ts";
import { markCredentialBroken } from "../store/credential-rows.ts";
import { type BrokenMark, KeyPools, type PoolKey } from "./key-pool.ts";

/** A key a call reports on; `stored`: a credential in D1, whose version is its `updated_at_ms`. */
export interface ReportedKey extends PoolKey {
  stored: boolean;
}

/** The synchronous key-value storage of a SQLite-backed Durable Object. */
interface SyncKv {
  get<T>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
}

export class KeyPoolHost {
  readonly #pools = new KeyPools();

  constructor(
    readonly kv: SyncKv,
    readonly db: D1Database,
  ) {}

  pick(pool: string, keys: readonly PoolKey[]): KeyPick {
    return this.#pools.pick(pool, keys, limitsNow(), (key) => this.#broken(key) !== undefined);
  }

  async report(teamId: string, pool: string, key: ReportedKey, outcome: KeyOutcome): Promise<void> {
    const nowMs = limitsNow();
    if (outcome.kind === "rate_limited") {
      this.#pools.cool(pool, key.id, outcome, nowMs);
      return;
    }
    if (this.#broken(key)) return;
    const mark: BrokenMark = { version: key.version, atMs: nowMs, ...(outcome.status !== undefined && { status: outcome.status }) };
    this.kv.put(brokenKey(key.id), mark);
    if (!key.stored) return;
    const reason = `the provider refused the key${outcome.status !== undefined ? ` (HTTP ${outcome.status})` : ""}`;
    try {
      await markCredentialBroken(d1(this.db), { teamId, id: key.id, updatedAtMs: Number(key.version), atMs: nowMs, reason });
    } catch (err) {
      // The pool already skips it; only the dashboard's mark waits for the next refusal.
      console.error("byok-edge: could not mark a credential broken in D1:", errorKind(err));
    }
  }

  /** The key's mark, if it was refused at its current version. */
  #broken(key: PoolKey): BrokenMark | undefined {
    const mark = this.kv.get<BrokenMark>(brokenKey(key.id));
    return mark?.version === key.version ? mark : undefined;
  }
}

function brokenKey(id: string): string {
  return `broken:${id}`;
}
