// The worker's renewals of a lease it forwards (docs/code-mode.md#leases).
import { errorKind } from "../../core/log-safe.ts";
import { LEASE_RENEW_MS } from "./lease.ts";

/**
 * A lease's renewal on a stream's beat: every beat when it beats at LEASE_RENEW_MS, every
 * LEASE_RENEW_MS / beatMs beats when faster. Counted in beats, not read off the clock, so
 * that a beat's jitter never skips one. A renewal that fails is logged and the next one is tried.
 */
export function leaseRenewal(beatMs: number, renew: () => Promise<unknown>): () => void {
  const every = Math.max(1, Math.floor(LEASE_RENEW_MS / beatMs));
  let beats = 0;
  return () => {
    if (++beats % every !== 0) return;
    renew().catch((err: unknown) => {
      console.warn("byok-edge: a code-mode lease renewal failed:", errorKind(err));
    });
  };
}
