// The rules of a pool of keys behind one model (docs/providers.md#keys-behind-one-model):
// smooth weighted round robin, cool-downs after a 429, and broken keys skipped.
import { describe, expect, it } from "vitest";
import { BROKEN_RETRY_MS, KeyPools, type PoolKey } from "../../../src/hosting/keys/key-pool.ts";

const KEYS: PoolKey[] = [
  { id: "a", weight: 1, version: "1" },
  { id: "b", weight: 2, version: "1" },
  { id: "c", weight: 3, version: "1" },
];
const none = () => undefined;

function picks(pools: KeyPools, count: number, nowMs = 0, broken: (key: PoolKey) => number | undefined = none): string[] {
  return Array.from({ length: count }, () => {
    const pick = pools.pick("pool", KEYS, nowMs, broken);
    return pick.kind === "key" ? pick.id : pick.kind;
  });
}

describe("key pools", () => {
  it("gives each key its weight's share of every six calls, interleaved rather than in runs", () => {
    const pools = new KeyPools();
    const sixty = picks(pools, 60);
    for (let i = 0; i < 60; i += 6) {
      const window = sixty.slice(i, i + 6);
      expect([
        window.filter((k) => k === "a").length,
        window.filter((k) => k === "b").length,
        window.filter((k) => k === "c").length,
      ]).toEqual([1, 2, 3]);
    }
    expect(sixty.slice(0, 6).join("")).not.toMatch(/ccc/);
  });

  it("skips a key cooled by a 429 for its Retry-After, then gives it calls again", () => {
    const pools = new KeyPools();
    pools.cool("pool", "c", { kind: "rate_limited", retryAfterMs: 30_000 }, 1_000);
    expect(picks(pools, 12, 30_999)).not.toContain("c");
    expect(picks(pools, 12, 31_000)).toContain("c");
  });

  it("backs off a key that keeps answering 429 without Retry-After, doubling each time", () => {
    const pools = new KeyPools();
    const only: PoolKey[] = [{ id: "a", weight: 1, version: "1" }];
    const cooling = (nowMs: number) => pools.pick("pool", only, nowMs, none);
    pools.cool("pool", "a", { kind: "rate_limited" }, 0);
    expect(cooling(0)).toEqual({ kind: "cooling", retryAfterMs: 1_000 });
    pools.cool("pool", "a", { kind: "rate_limited" }, 1_000);
    expect(cooling(1_000)).toEqual({ kind: "cooling", retryAfterMs: 2_000 });
    pools.cool("pool", "a", { kind: "rate_limited" }, 3_000);
    expect(cooling(3_000)).toEqual({ kind: "cooling", retryAfterMs: 4_000 });
    // A 429 long after the last one starts again from a second.
    pools.cool("pool", "a", { kind: "rate_limited" }, 600_000);
    expect(cooling(600_000)).toEqual({ kind: "cooling", retryAfterMs: 1_000 });
  });

  it("gives out no key broken recently, and says so when every key is", () => {
    const pools = new KeyPools();
    expect(picks(pools, 10, 1_000, (k) => (k.id === "c" ? 0 : undefined))).not.toContain("c");
    expect(pools.pick("pool", KEYS, 1_000, () => 0)).toEqual({ kind: "broken" });
  });

  it("tries a key broken long enough ago once more, on probation, and holds it back while that call runs", () => {
    const pools = new KeyPools();
    const brokenAt = (k: PoolKey) => (k.id === "c" ? 0 : undefined);
    expect(pools.pick("pool", KEYS, BROKEN_RETRY_MS, brokenAt)).toEqual({ kind: "key", id: "c", probation: true });
    expect(picks(pools, 6, BROKEN_RETRY_MS + 1, brokenAt)).not.toContain("c");
    // The call answered: the mark is gone, and the key is back in the spread.
    pools.release("pool", "c");
    expect(picks(pools, 6, BROKEN_RETRY_MS + 2)).toContain("c");
  });

  it("says when the first cooled key is free again when every usable one is cooling", () => {
    const pools = new KeyPools();
    pools.cool("pool", "a", { kind: "rate_limited", retryAfterMs: 5_000 }, 0);
    pools.cool("pool", "b", { kind: "rate_limited", retryAfterMs: 2_000 }, 0);
    expect(pools.pick("pool", KEYS, 500, (k) => (k.id === "c" ? 0 : undefined))).toEqual({ kind: "cooling", retryAfterMs: 1_500 });
  });

  it("keeps each pool's spread and cool-downs apart", () => {
    const pools = new KeyPools();
    pools.cool("other", "c", { kind: "rate_limited", retryAfterMs: 60_000 }, 0);
    expect(picks(pools, 6)).toContain("c");
  });
});
