// Per-isolate cache of a hosted user's limits (their users row and their team's
// budget), kept at most 5 s from when its lookup started, so a run start or a
// provider call costs no D1 round trip most of the time (docs/hosting.md#limits).
import type { LimitsRow } from "../store/limit-rows.ts";
import { limitsNow } from "./clock.ts";

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

interface Entry {
  row: LimitsRow | undefined;
  validUntilMs: number;
}

const entries = new Map<string, Entry>();
const inflight = new Map<string, { loading: Promise<LimitsRow | undefined>; startedMs: number }>();

export async function cachedLimits(userId: string, lookup: () => Promise<LimitsRow | undefined>): Promise<LimitsRow | undefined> {
  const cached = entries.get(userId);
  if (cached && limitsNow() < cached.validUntilMs) return cached.row;
  const pending = inflight.get(userId);
  // Joining a lookup is only as good as its start (the 5 s bound counts from there).
  if (pending && limitsNow() < pending.startedMs + TTL_MS) return pending.loading;
  const startedMs = limitsNow();
  const loading = lookup()
    .then((row) => {
      entries.delete(userId);
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      entries.set(userId, { row, validUntilMs: startedMs + TTL_MS });
      return row;
    })
    .finally(() => {
      if (inflight.get(userId)?.loading === loading) inflight.delete(userId);
    });
  inflight.set(userId, { loading, startedMs });
  return loading;
}

/** A change made in this isolate holds here at once (elsewhere within 5 s). */
export function forgetCachedLimits(): void {
  entries.clear();
}
