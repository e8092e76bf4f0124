// The attempt limit per client address (src/hosting/auth/auth-attempts.ts, docs/hosting.md#rate-limits)
// on a moved clock: a token seen valid from an address passes there for 10 minutes without being
// counted; once the binding refuses an address, its other tokens are refused for a minute without
// asking it again. The binding is a stand-in of the same shape that refuses past a limit.
import { describe, expect, it } from "vitest";
import { AuthAttempts } from "../../../src/hosting/auth/auth-attempts.ts";
import { codeName, RetryLater } from "../../../src/core/errors.ts";

/** Cloudflare's Rate Limiting binding as the worker sees it: counts per key, refuses past `limit`. */
class CountingLimiter {
  calls = 0;
  readonly #counts = new Map<string, number>();

  constructor(private readonly limit_: number) {}

  async limit({ key }: { key: string }): Promise<{ success: boolean }> {
    this.calls++;
    const count = this.#counts.get(key) ?? 0;
    if (count >= this.limit_) return { success: false };
    this.#counts.set(key, count + 1);
    return { success: true };
  }

  reset(): void {
    this.#counts.clear();
  }
}

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

async function refusal(promise: Promise<void>): Promise<RetryLater> {
  const error = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof RetryLater)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe("AuthAttempts", () => {
  it("passes a token seen valid from the address without counting it, for 10 minutes", async () => {
    const time = clock();
    const attempts = new AuthAttempts(time.now);
    const limiter = new CountingLimiter(1000);
    await attempts.admit("a", "good", limiter);
    attempts.seenValid("a", "good");
    for (let i = 0; i < 5; i++) await attempts.admit("a", "good", limiter);
    expect(limiter.calls).toBe(1);
    // From another address it is counted: what was seen is per address.
    await attempts.admit("b", "good", limiter);
    expect(limiter.calls).toBe(2);
    time.advance(10 * 60_000);
    await attempts.admit("a", "good", limiter);
    expect(limiter.calls).toBe(3);
  });

  it("refuses an address's unknown tokens for a minute once the binding refuses it, without asking it again, then asks again", async () => {
    const time = clock();
    const attempts = new AuthAttempts(time.now);
    const limiter = new CountingLimiter(3);
    attempts.seenValid("a", "good");
    for (let i = 0; i < 3; i++) await attempts.admit("a", `guess-${i}`, limiter);
    const first = await refusal(attempts.admit("a", "guess-3", limiter));
    expect(codeName(first)).toBe("resource_exhausted");
    expect(first.retryAfterSeconds).toBe(60);
    expect(first.rawMessage).toContain("retry in 60 s");
    const calls = limiter.calls;
    time.advance(45_000);
    const later = await refusal(attempts.admit("a", "guess-4", limiter));
    expect(later.retryAfterSeconds).toBe(15);
    expect(limiter.calls).toBe(calls);
    // The token seen valid there still passes; another address is not refused.
    await attempts.admit("a", "good", limiter);
    await attempts.admit("b", "guess", limiter);
    // Past the minute the binding is asked again; its new window lets the address in.
    time.advance(15_000);
    limiter.reset();
    await attempts.admit("a", "guess-5", limiter);
  });
});
