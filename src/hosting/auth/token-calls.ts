// Every authenticated call is limited per token (docs/hosting.md#rate-limits): TOKEN_CALLS, 1,000
// calls in 10 s per token (Cloudflare's Rate Limiting binding), far above what Cursor, code mode or
// the dashboard make. The key is the token's row id (or the operator / single user), never the
// token or its hash.
import { RetryLater } from "../../core/errors.ts";

/** The binding's period and limit (wrangler.toml `TOKEN_CALLS`), named in the refusal. */
const PERIOD_S = 10;
const CALLS_PER_PERIOD = 1000;

/** Counts a call of `tokenKey`; over the limit, resource_exhausted saying to retry after one period. */
export async function limitTokenCall(limiter: RateLimit, tokenKey: string): Promise<void> {
  const { success } = await limiter.limit({ key: tokenKey });
  if (success) return;
  throw new RetryLater(`too many calls with this token (over ${CALLS_PER_PERIOD} in ${PERIOD_S} s); retry in ${PERIOD_S} s`, PERIOD_S);
}
