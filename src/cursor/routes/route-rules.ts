// How long and how many: the router's bounds (docs/protocol.md#seqno), apart from the
// object so the edge's route cache (and Node tests) can read them.

/** How long a request may wait for its seqno-0 append (docs/protocol.md#seqno). */
export const ROUTE_WAIT_MS = 30_000;
/**
 * Calls waiting at the router at once, per principal. Each holds an open request; a client
 * flooding appends for request ids it never binds is refused beyond this, at once,
 * instead of parking without end (docs/protocol.md#seqno).
 */
export const ROUTE_WAITERS_MAX = 1024;
/** Routes are kept at least this long after their binding (dropped by the next prune after); a request id lives for a turn or a few. */
export const ROUTE_TTL_MS = 24 * 60 * 60 * 1000;
