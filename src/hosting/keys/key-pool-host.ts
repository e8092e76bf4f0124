// What a team's key pool object does with a pick and a report (docs/providers.md#keys-behind-one-model):
// the spread and cool-downs live in memory (they last seconds to a minute; an object that
// restarts starts them afresh), the broken marks in the object's storage, and a stored
// credential's mark also in D1, where the credentials API and the dashboard show it.
import { errorKind } from "../../core/log-safe.ts";
import type { KeyOutcome, KeyPick } from "../../provider/model-keys.ts";
import { limitsNow } from "../limits/clock.ts";
import { d1 } from "../store/db.ts";
import { clearCredentialBroken, markCredentialBroken } from "../store/credential-rows.ts";
import { type BrokenMark, KeyPools, type PoolKey } from "./key-pool.ts";

/** A key a call reports on; `stored`: a credential in D1, whose version is its `updated_at_ms`. */
export interface ReportedKey extends PoolKey {
  stored: boolean;
}

/** The synchronous key-value storage of a SQLite-backed Durable Object. */
interface SyncKv {
  get<T>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
  delete(key: string): boolean;
}

export class KeyPoolHost {
  readonly #pools = new KeyPools();

  constructor(
    readonly kv: SyncKv,
    readonly db: D1Database,
  ) {}

  pick(pool: string, keys: readonly PoolKey[]): KeyPick {
    return this.#pools.pick(pool, keys, limitsNow(), (key) => this.kv.get<BrokenMark>(brokenKey(key))?.atMs);
  }

  async report(teamId: string, pool: string, key: ReportedKey, outcome: KeyOutcome): Promise<void> {
    const nowMs = limitsNow();
    if (outcome.kind === "rate_limited") {
      this.#pools.cool(pool, key.id, outcome, nowMs);
      return;
    }
    if (outcome.kind === "answered") {
      // A key on probation answered: mended, here and on the Credentials page.
      this.kv.delete(brokenKey(key));
      this.#pools.release(pool, key.id);
      if (key.stored)
        await this.#inD1("could not clear a credential's broken mark in D1", () =>
          clearCredentialBroken(d1(this.db), mark(teamId, key, nowMs)),
        );
      return;
    }
    // Refused again (or first): the mark's time restarts, so the next try waits its full while.
    this.kv.put<BrokenMark>(brokenKey(key), {
      version: key.version,
      atMs: nowMs,
      ...(outcome.status !== undefined && { status: outcome.status }),
    });
    this.#pools.release(pool, key.id);
    if (!key.stored) return;
    const reason = `the provider refused the key${outcome.status !== undefined ? ` (HTTP ${outcome.status})` : ""}`;
    // Written on every refusal (it marks a version once): a write that failed is made by the next.
    await this.#inD1("could not mark a credential broken in D1", () =>
      markCredentialBroken(d1(this.db), { ...mark(teamId, key, nowMs), reason }),
    );
  }

  async #inD1(what: string, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (err) {
      console.error(`byok-edge: ${what}:`, errorKind(err));
    }
  }
}

function mark(teamId: string, key: ReportedKey, atMs: number) {
  return { teamId, id: key.id, updatedAtMs: Number(key.version), atMs };
}

/** A mark per key and version: a late report about a key's older version cannot touch its newer one's. */
function brokenKey(key: PoolKey): string {
  return `broken:${key.id}:${key.version}`;
}
