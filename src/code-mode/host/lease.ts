// The lease's timing and the opt-ins of long streams (docs/code-mode.md#leases). A
// session lives as long as its OpenSession stream: the object retires it when the
// stream's request signal fires, and its alarm retires it when the worker stopped
// renewing it for LEASE_TTL_MS. Locally (workerd) a client that left an idle stream is
// noticed only at the next write, so a client may ask for heartbeats on its server
// streams: an empty message (an event-less SessionEvent or ExecuteEvent, a ToolCall
// without an invocation id) every HEARTBEAT_MS, which it skips.
import type { ExecuteEvent, SessionEvent, ToolCall } from "../../proto/gen/codex/code_mode/v1/code_mode_pb.ts";

export const LEASE_TTL_MS = 15_000;
/** How often the worker renews a lease it forwards: a late beat and a failed renewal still leave a renewal in the TTL. */
export const LEASE_RENEW_MS = LEASE_TTL_MS / 5;
/** How often a heartbeat goes out when asked: a dropped stream is noticed at the second one. */
export const HEARTBEAT_MS = 1_000;

/** Request header of OpenSession, SubscribeToToolCalls and Execute: "on" asks for heartbeat messages. */
export const HEARTBEAT_HEADER = "x-byok-heartbeat";

/** The methods (by name) whose streams carry heartbeats when asked. */
export const HEARTBEAT_METHODS: ReadonlySet<string> = new Set(["OpenSession", "SubscribeToToolCalls", "Execute"]);

/** Whether a message of such a stream is a heartbeat, which the client skips. */
export function isHeartbeat(message: SessionEvent | ExecuteEvent | ToolCall): boolean {
  return message.$typeName === "codex.code_mode.v1.ToolCall" ? message.invocationId === "" : message.event.case === undefined;
}

/**
 * Response header of SubscribeToToolCalls, set once the subscription takes calls.
 * Over Connect an early error also comes with headers; this one tells them apart.
 */
export const SUBSCRIPTION_READY_HEADER = "x-byok-subscription";

export interface Beat<T> {
  /** On every beat while the stream lasts; a message it returns is sent. */
  onBeat(): T | undefined;
  beatMs: number;
}

/** A forwarded stream's messages as they come, with a fixed beat however often they come. */
export async function* forwardWithBeat<T>(messages: AsyncIterable<T>, beat: Beat<T>): AsyncGenerator<T> {
  const source = messages[Symbol.asyncIterator]();
  let tick = Promise.withResolvers<typeof TICK>();
  const timer = setInterval(() => tick.resolve(TICK), beat.beatMs);
  let next = source.next();
  try {
    for (;;) {
      const first = await Promise.race([next, tick.promise]);
      if (first === TICK) {
        tick = Promise.withResolvers<typeof TICK>();
        const message = beat.onBeat();
        if (message !== undefined) yield message;
        continue;
      }
      if (first.done) return;
      next = source.next();
      yield first.value;
    }
  } finally {
    clearInterval(timer);
    // Left early (the client went away): the forwarded call ends with the same signal.
    next.catch(() => undefined);
  }
}

const TICK = Symbol("tick");
