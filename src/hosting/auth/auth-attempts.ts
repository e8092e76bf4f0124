// Failed authentications are limited per client address before any work (docs/hosting.md#rate-limits).
// A call whose token this isolate has seen valid from the same address in the last 10 minutes
// passes untouched; any other call is counted into AUTH_ATTEMPTS (1,000 a minute per address,
// Cloudflare's Rate Limiting binding) before its token is looked up in D1. Once the binding refuses
// an address, this isolate refuses that address's unknown tokens for a minute without asking again,
// so a flood costs neither D1 queries nor binding calls. What is remembered is per isolate and bounded.
import { RetryLater } from "../../core/errors.ts";

/** How long a token seen valid from an address passes the attempt limit there. */
const SEEN_VALID_MS = 10 * 60_000;
/** How long an address the binding refused is refused here without asking it again: its period. */
const BLOCK_MS = 60_000;
/** The binding's limit per address and minute (wrangler.toml `AUTH_ATTEMPTS`), named in the refusal. */
const ATTEMPTS_PER_MINUTE = 1000;
/** Bounds of each memory; the oldest entry goes first. */
const MAX_SEEN_VALID = 20_000;
const MAX_BLOCKED = 10_000;

/** The client's address: CF-Connecting-IP, which Cloudflare sets; without it (tests, some local setups) one shared key. */
export function clientAddress(request: Request): string {
  return request.headers.get("cf-connecting-ip")?.trim() || "unknown-address";
}

export class AuthAttempts {
  /** `address token-hash` → when the token was last seen valid from the address. */
  readonly #seenValid = new Map<string, number>();
  /** address → until when its unknown tokens are refused here. */
  readonly #blocked = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Passes a call whose token (its SHA-256, "" for none) was seen valid from `address` lately;
   * otherwise counts it against the address and refuses it with resource_exhausted once over the limit.
   */
  async admit(address: string, tokenHash: string, limiter: RateLimit): Promise<void> {
    const now = this.now();
    const seen = this.#seenValid.get(seenKey(address, tokenHash));
    if (seen !== undefined && now - seen < SEEN_VALID_MS) return;
    const blockedUntil = this.#blocked.get(address);
    if (blockedUntil !== undefined && now < blockedUntil) throw refused(blockedUntil - now);
    if (blockedUntil !== undefined) this.#blocked.delete(address);
    const { success } = await limiter.limit({ key: address });
    if (success) return;
    remember(this.#blocked, address, now + BLOCK_MS, MAX_BLOCKED);
    throw refused(BLOCK_MS);
  }

  /** The token authenticated from `address`: it passes there for the next 10 minutes. */
  seenValid(address: string, tokenHash: string): void {
    remember(this.#seenValid, seenKey(address, tokenHash), this.now(), MAX_SEEN_VALID);
  }
}

function seenKey(address: string, tokenHash: string): string {
  return `${address} ${tokenHash}`;
}

/** Sets a key as the newest entry, dropping the oldest past `max`. */
function remember(map: Map<string, number>, key: string, value: number, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) {
    const oldest = map.keys().next();
    if (oldest.done) break;
    map.delete(oldest.value);
  }
}

function refused(waitMs: number): RetryLater {
  const seconds = Math.ceil(waitMs / 1000);
  return new RetryLater(
    `too many failed authentications from this address (over ${ATTEMPTS_PER_MINUTE} a minute); retry in ${seconds} s`,
    seconds,
  );
}
