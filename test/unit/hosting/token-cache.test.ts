// The token cache (src/hosting/auth/token-cache.ts) against an in-memory token source:
// answers reused for at most 5 s from their lookup's start and never past the
// token's expiry, one lookup for a burst, last_used_at written once a minute.
import { describe, expect, it } from "vitest";
import { TokenCache, type TokenSource } from "../../../src/hosting/auth/token-cache.ts";
import type { TokenOwner } from "../../../src/hosting/store/token-rows.ts";

const owner = (over: Partial<TokenOwner> = {}): TokenOwner => ({
  tokenId: "tok_1",
  kind: "token",
  userId: "usr_1",
  teamId: "team_1",
  role: "member",
  email: "a@example.com",
  expiresAtMs: null,
  personalKeyId: null,
  personalKeyWrap: null,
  lastUsedAtMs: null,
  ...over,
});

/** Tokens by hash; counts lookups and records touches. */
class MemorySource implements TokenSource {
  readonly tokens = new Map<string, TokenOwner>();
  lookups = 0;
  readonly touches: { tokenId: string; nowMs: number }[] = [];
  readonly deferred: Promise<unknown>[] = [];
  /** When set, a lookup waits for this before answering. */
  gate: Promise<void> | undefined;

  async lookup(hash: string, nowMs: number): Promise<TokenOwner | undefined> {
    this.lookups++;
    await this.gate;
    const found = this.tokens.get(hash);
    return found && (found.expiresAtMs === null || found.expiresAtMs > nowMs) ? found : undefined;
  }

  async touch(tokenId: string, nowMs: number): Promise<void> {
    this.touches.push({ tokenId, nowMs });
  }

  waitUntil(promise: Promise<unknown>): void {
    this.deferred.push(promise);
  }
}

function setup() {
  let now = 1_000_000;
  const clock = { set: (ms: number) => (now = ms), get: () => now };
  const cache = new TokenCache(() => now, 3);
  const source = new MemorySource();
  return { cache, source, clock };
}

describe("token cache", () => {
  it("reuses an answer for less than 5 s, then asks again and sees a revocation", async () => {
    const { cache, source, clock } = setup();
    source.tokens.set("h", owner());
    expect(await cache.resolve("h", source)).toMatchObject({ userId: "usr_1" });
    source.tokens.delete("h"); // revoked right after the lookup
    clock.set(1_000_000 + 4_999);
    expect(await cache.resolve("h", source)).toMatchObject({ userId: "usr_1" });
    expect(source.lookups).toBe(1);
    clock.set(1_000_000 + 5_000);
    expect(await cache.resolve("h", source)).toBeUndefined();
    expect(source.lookups).toBe(2);
  });

  it("counts the 5 s from when the lookup started, not when it answered", async () => {
    const { cache, source, clock } = setup();
    source.tokens.set("h", owner());
    let open!: () => void;
    source.gate = new Promise<void>((resolve) => (open = resolve));
    const answer = cache.resolve("h", source);
    clock.set(1_000_000 + 3_000); // a slow lookup
    open();
    await answer;
    source.gate = undefined;
    clock.set(1_000_000 + 5_000);
    await cache.resolve("h", source);
    expect(source.lookups).toBe(2);
  });

  it("never reuses an answer past the token's expiry", async () => {
    const { cache, source, clock } = setup();
    source.tokens.set("h", owner({ expiresAtMs: 1_000_000 + 1_000 }));
    expect(await cache.resolve("h", source)).toBeDefined();
    clock.set(1_000_000 + 999);
    expect(await cache.resolve("h", source)).toBeDefined();
    clock.set(1_000_000 + 1_000);
    expect(await cache.resolve("h", source)).toBeUndefined();
  });

  it("caches a refusal too, for the same 5 s", async () => {
    const { cache, source, clock } = setup();
    expect(await cache.resolve("nope", source)).toBeUndefined();
    expect(await cache.resolve("nope", source)).toBeUndefined();
    expect(source.lookups).toBe(1);
    clock.set(1_000_000 + 5_000);
    await cache.resolve("nope", source);
    expect(source.lookups).toBe(2);
  });

  it("answers a burst of checks of one token with one lookup", async () => {
    const { cache, source } = setup();
    source.tokens.set("h", owner());
    const answers = await Promise.all([cache.resolve("h", source), cache.resolve("h", source), cache.resolve("h", source)]);
    expect(answers.every((a) => a?.userId === "usr_1")).toBe(true);
    expect(source.lookups).toBe(1);
  });

  it("forgets a token or a user's tokens at once", async () => {
    const { cache, source } = setup();
    source.tokens.set("h1", owner({ tokenId: "tok_1" }));
    source.tokens.set("h2", owner({ tokenId: "tok_2" }));
    await cache.resolve("h1", source);
    await cache.resolve("h2", source);
    source.tokens.clear();
    cache.forgetToken("tok_1");
    expect(await cache.resolve("h1", source)).toBeUndefined();
    expect(await cache.resolve("h2", source)).toBeDefined();
    cache.forgetUser("usr_1");
    expect(await cache.resolve("h2", source)).toBeUndefined();
  });

  it("writes last_used_at at most once a minute, after the answer", async () => {
    const { cache, source, clock } = setup();
    source.tokens.set("h", owner());
    await cache.resolve("h", source);
    clock.set(1_000_000 + 30_000);
    await cache.resolve("h", source);
    expect(source.touches).toEqual([{ tokenId: "tok_1", nowMs: 1_000_000 }]);
    clock.set(1_000_000 + 60_000);
    await cache.resolve("h", source);
    expect(source.touches.map((t) => t.nowMs)).toEqual([1_000_000, 1_060_000]);
    expect(source.deferred).toHaveLength(2);
  });

  it("does not write last_used_at when another isolate wrote it within the minute", async () => {
    const { cache, source } = setup();
    source.tokens.set("h", owner({ lastUsedAtMs: 1_000_000 - 10_000 }));
    await cache.resolve("h", source);
    expect(source.touches).toEqual([]);
  });

  it("keeps at most its bound of answers, dropping the oldest", async () => {
    const { cache, source } = setup(); // bound: 3
    for (const hash of ["a", "b", "c", "d"]) await cache.resolve(hash, source);
    expect(source.lookups).toBe(4);
    await cache.resolve("d", source);
    expect(source.lookups).toBe(4);
    await cache.resolve("a", source);
    expect(source.lookups).toBe(5);
  });
});
