// Request id → conversation id for one principal, the logic of its router object
// (src/durable/router-object.ts): the conversation id only arrives inside run_request
// (append_seqno 0), while RunSSE and later appends may come first; they wait here, bounded
// (docs/architecture.md#routing).
import { errorKind } from "../../core/log-safe.ts";
import { ROUTE_TTL_MS, ROUTE_WAIT_MS, ROUTE_WAITERS_MAX } from "./route-rules.ts";

export type BindResult = { status: "bound"; boundAtMs: number } | { status: "conflict"; conversationId: string; boundAtMs: number };

/** A request's conversation; none within the wait; or too many calls waiting already. */
export type ResolveResult = { status: "routed"; conversationId: string; boundAtMs: number } | { status: "timeout" } | { status: "busy" };

interface Waiter {
  /** The caller's name for this wait, so it can stop waiting when its client leaves. */
  waitId: string | undefined;
  resolve: (route: Route | null) => void;
  timer: ReturnType<typeof setTimeout>;
  /** A RunSSE waiting here is told at once of a client heartbeat on its request. */
  onHeartbeat: (() => void) | undefined;
  /** This wait is a client heartbeat's append: a RunSSE that comes to wait after it hears of it too. */
  heartbeat: boolean;
}

export interface ResolveOptions {
  waitMs?: number;
  /** Called for each client heartbeat that arrives for this request while it waits (RunSSE). */
  onHeartbeat?: () => void;
  /** This caller carries a client heartbeat: waiting RunSSE callers hear of it before anyone waits. */
  heartbeat?: boolean;
  /** Names this wait for `stopWaiting`. */
  waitId?: string;
}

export class RequestRouter {
  readonly #storage: DurableObjectStorage;
  readonly #waiters = new Map<string, Set<Waiter>>();
  #waiting = 0;
  /** The prune alarm is known to be set in this object's life: a bind needs no storage read for it. */
  #pruneArmed = false;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  /** Records request → conversation and wakes everyone waiting for it. */
  bind(requestId: string, conversationId: string): BindResult {
    const existing = this.#lookup(requestId);
    if (existing !== null && existing.conversationId !== conversationId) return { status: "conflict", ...existing };
    const route = existing ?? { conversationId, boundAtMs: Date.now() };
    if (existing === null) {
      this.#storage.kv.put<Route>(routeKey(requestId), route);
      void this.#schedulePrune();
    }
    const waiters = this.#waiters.get(requestId);
    if (waiters) {
      this.#waiters.delete(requestId);
      for (const w of waiters) {
        clearTimeout(w.timer);
        w.resolve(route);
      }
    }
    return { status: "bound", boundAtMs: route.boundAtMs };
  }

  /** The conversation of a request, waiting up to `waitMs` for its binding. */
  async resolve(requestId: string, options: ResolveOptions = {}): Promise<ResolveResult> {
    const { waitMs = ROUTE_WAIT_MS, onHeartbeat, heartbeat = false, waitId } = options;
    const known = this.#lookup(requestId);
    if (known !== null) return { status: "routed", ...known };
    if (waitMs <= 0) return { status: "timeout" };
    if (this.#waiting >= ROUTE_WAITERS_MAX) return { status: "busy" };
    // A heartbeat before seqno 0 is answered on the request's RunSSE at once, not after the gap,
    // whichever of the two reaches the router first (docs/protocol.md#heartbeats).
    const waiting = [...(this.#waiters.get(requestId) ?? [])];
    if (heartbeat) for (const w of waiting) notify(w);
    const beatWaiting = waiting.some((w) => w.heartbeat);
    this.#waiting++;
    const route = await new Promise<Route | null>((resolve) => {
      const set = this.#waiters.get(requestId) ?? new Set<Waiter>();
      this.#waiters.set(requestId, set);
      const waiter: Waiter = {
        waitId,
        resolve,
        onHeartbeat,
        heartbeat,
        timer: setTimeout(
          () => {
            set.delete(waiter);
            if (set.size === 0) this.#waiters.delete(requestId);
            resolve(null);
          },
          Math.min(waitMs, ROUTE_WAIT_MS),
        ),
      };
      set.add(waiter);
      if (beatWaiting) notify(waiter);
    });
    this.#waiting--;
    return route === null ? { status: "timeout" } : { status: "routed", ...route };
  }

  /** The caller's client went away: its wait ends now (as a timeout) and frees its place. */
  stopWaiting(requestId: string, waitId: string): void {
    const set = this.#waiters.get(requestId);
    for (const waiter of set ?? []) {
      if (waiter.waitId !== waitId) continue;
      clearTimeout(waiter.timer);
      set?.delete(waiter);
      if (set?.size === 0) this.#waiters.delete(requestId);
      waiter.resolve(null);
    }
  }

  /** Calls waiting for a binding now. */
  waitingCalls(): number {
    return this.#waiting;
  }

  /** Drops expired routes (the object's alarm); runs at most once per TTL. */
  async prune(): Promise<void> {
    const cutoff = Date.now() - ROUTE_TTL_MS;
    let remaining = 0;
    for (const [key, route] of this.#storage.kv.list<Route>({ prefix: ROUTE_PREFIX })) {
      if (route.boundAtMs < cutoff) this.#storage.kv.delete(key);
      else remaining++;
    }
    // Routes bound since the alarm was set expire on the next round.
    this.#pruneArmed = remaining > 0;
    if (remaining > 0) await this.#storage.setAlarm(Date.now() + ROUTE_TTL_MS);
  }

  #lookup(requestId: string): Route | null {
    const route = this.#storage.kv.get<Route>(routeKey(requestId));
    return route ? { conversationId: route.conversationId, boundAtMs: route.boundAtMs } : null;
  }

  async #schedulePrune(): Promise<void> {
    if (this.#pruneArmed) return;
    this.#pruneArmed = true;
    try {
      if ((await this.#storage.getAlarm()) === null) await this.#storage.setAlarm(Date.now() + ROUTE_TTL_MS);
    } catch (err) {
      this.#pruneArmed = false; // the next bind tries again
      console.error("byok-edge: could not set the route prune alarm:", errorKind(err));
    }
  }
}

interface Route {
  conversationId: string;
  boundAtMs: number;
}

const ROUTE_PREFIX = "route:";

function routeKey(requestId: string): string {
  return ROUTE_PREFIX + requestId;
}

/** Tells a waiting RunSSE of a heartbeat; one that has gone away meanwhile needs nothing more. */
function notify(waiter: Waiter): void {
  try {
    const sent: unknown = waiter.onHeartbeat?.();
    if (sent instanceof Promise) sent.catch(() => undefined);
  } catch {
    // The RunSSE's callback is gone (its client left): nothing to tell.
  }
}
