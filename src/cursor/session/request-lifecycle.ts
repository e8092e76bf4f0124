// The life of one Cursor request id inside a conversation object, as a reducer:
// (state, event, now) → (state, effects). Every change of a request's state happens
// here; the session carries the effects out. No I/O, no clock, no timers; the one
// thing changed in place is the request's own inbox. See docs/architecture.md.
import type { AgentClientMessage, ConversationAction } from "../../proto/gen/agent/v1/agent_pb.ts";
import { AppError } from "../../core/errors.ts";
import { RUN_CANCELLED } from "../agent/run-errors.ts";
import { OBJECT_HELD_MAX_BYTES, OrderedInbox, REQUEST_HELD_MAX_BYTES, SEQNO_WINDOW } from "./inbox.ts";

/** An append that reached an ended request with an old seqno: maybe the start of its renumbering. */
interface Parked {
  seqno: number;
  message: AgentClientMessage;
  bytes: number;
}

interface Common {
  /** Orders this request's appends by seqno. A renewed request keeps it; a renumbered one starts afresh. */
  inbox: OrderedInbox<AgentClientMessage>;
  /** The bytes of the append at seqno 0, to tell a retried seqno 0 (same bytes) from a renumbering. */
  firstAppend: Uint8Array | undefined;
}

export type RequestState =
  /** No run_request yet: RunSSE, a heartbeat or a later seqno came first. */
  | (Common & { kind: "waiting"; sinceMs: number })
  /** A run streams on this request. `graceArmed`: nobody listens, and the disconnect grace is counting. */
  | (Common & { kind: "running"; runId: string; graceArmed: boolean })
  /**
   * The turn ended (turn_ended and its checkpoint tail are out) and the stream stays open for the
   * continuation window: a runtime user message now is the next turn on this same stream.
   */
  | (Common & { kind: "continuable" })
  /** The end-stream frame is written; a reused request id may start again from here. */
  | (Common & { kind: "ended"; atMs: number; parked: Parked[] });

/** What the session decided a run_request asks for: a run to start, or why it cannot. */
type PlanResult<P> = { plan: P } | { error: AppError };

export type RequestEvent<P> =
  /** `heldElsewhere`: bytes the object's other requests hold (for the object's cap, docs/protocol.md#limits). */
  | { kind: "append"; seqno: number; bytes: Uint8Array; message: AgentClientMessage; heldElsewhere?: number }
  /** A run_request left the inbox, already planned by the session; `subscribers` on the current stream. */
  | { kind: "run-requested"; runId: string; planned: PlanResult<P>; subscribers: number; continuation?: boolean }
  /** Any other message, in seqno order. */
  | { kind: "client-message"; message: AgentClientMessage }
  | { kind: "subscribed" }
  | { kind: "detached"; remaining: number }
  | { kind: "grace-expired"; subscribers: number }
  /**
   * The run settled; `error` is its end-stream error (none when it completed). `continuable`: the
   * turn completed and the continuation window is on, so the stream waits for a next turn.
   */
  | { kind: "run-finished"; runId: string; error: AppError | undefined; continuable: boolean }
  | { kind: "continuation-expired" }
  | { kind: "shutdown" }
  /** Housekeeping: a request that ended or waited longer than its TTL is forgotten. */
  /** Requests that ended, or waited for a run_request, longer than `ttlMs` ago are forgotten. */
  | { kind: "expire"; ttlMs: number };

export type RequestEffect<P> =
  /** Sent to current subscribers only (not replayed). */
  | { kind: "heartbeat" }
  /** These messages left the inbox in seqno order; the session feeds each back as an event. */
  | { kind: "release"; items: AgentClientMessage[] }
  /** A new stream (outbox) for the same request id: a reused id after its end. */
  | { kind: "open-stream" }
  | { kind: "start-run"; runId: string; plan: P }
  | { kind: "cancel-run"; runId: string; reason: string }
  /** An exec, KV or interaction reply for the run's channel. */
  | { kind: "deliver"; runId: string; message: AgentClientMessage }
  /** A conversation action; `runId` is the run it reaches, if any is live. */
  | { kind: "runtime-action"; runId: string | null; action: ConversationAction }
  /** Blob transfers the finished run's client already answered leave the replay. */
  | { kind: "drop-finished" }
  | { kind: "end-stream"; error: AppError | undefined }
  /** A runtime user message in the continuation window: the session plans it as the next turn. */
  | { kind: "continue"; action: ConversationAction }
  | { kind: "arm-grace" }
  | { kind: "disarm-grace" }
  | { kind: "arm-continuation" }
  | { kind: "disarm-continuation" }
  | { kind: "forget" };

export type AppendStatus = "accepted" | "buffered" | "duplicate" | "stale" | "overflow" | "too-far";

/** Bytes of appends this request holds: waiting for a gap, or parked on its end. */
export function heldBytes(state: RequestState): number {
  const parked = state.kind === "ended" ? state.parked.reduce((sum, p) => sum + p.bytes, 0) : 0;
  return state.inbox.heldBytes + parked;
}

export interface Transition<P> {
  state: RequestState;
  effects: RequestEffect<P>[];
  /** Set for `append`: what happened to the append. */
  status?: AppendStatus;
}

/** Ended requests stay replayable, and waiting ones wait, this long by default (BYOK_REQUEST_TTL_MS; docs/protocol.md#limits). */
export const REQUEST_TTL_MS = 10 * 60 * 1000;

export function initialState(nowMs: number): RequestState {
  return { kind: "waiting", sinceMs: nowMs, inbox: new OrderedInbox(), firstAppend: undefined };
}

/** A request whose run ended in an earlier life of this object: only its end is left to tell. */
export function restoredState<P>(nowMs: number, error: AppError | undefined): Transition<P> {
  return {
    state: { kind: "ended", atMs: nowMs, parked: [], inbox: new OrderedInbox(), firstAppend: undefined },
    effects: [{ kind: "end-stream", error }],
  };
}

export function reduce<P>(state: RequestState, event: RequestEvent<P>, nowMs: number): Transition<P> {
  switch (event.kind) {
    case "append":
      return onAppend(state, event, nowMs);
    case "run-requested":
      return onRunRequested(state, event, nowMs);
    case "client-message":
      return onClientMessage(state, event.message, nowMs);
    case "subscribed":
      return state.kind === "running" && state.graceArmed
        ? { state: { ...state, graceArmed: false }, effects: [{ kind: "disarm-grace" }] }
        : unchanged(state);
    case "detached":
      return event.remaining === 0 && state.kind === "running" && !state.graceArmed
        ? { state: { ...state, graceArmed: true }, effects: [{ kind: "arm-grace" }] }
        : unchanged(state);
    case "grace-expired":
      if (state.kind !== "running" || !state.graceArmed) return unchanged(state);
      return {
        state: { ...state, graceArmed: false },
        effects: event.subscribers === 0 ? [{ kind: "cancel-run", runId: state.runId, reason: "the client disconnected" }] : [],
      };
    case "run-finished":
      // A run replaced on this request leaves the stream to its replacement.
      if (state.kind !== "running" || state.runId !== event.runId) return unchanged(state);
      if (event.error === undefined && event.continuable) {
        const effects: RequestEffect<P>[] = [{ kind: "drop-finished" }, { kind: "arm-continuation" }];
        if (state.graceArmed) effects.push({ kind: "disarm-grace" });
        return { state: { kind: "continuable", inbox: state.inbox, firstAppend: state.firstAppend }, effects };
      }
      return end(state, nowMs, event.error, [{ kind: "drop-finished" }]);
    case "continuation-expired":
      return state.kind === "continuable" ? end(state, nowMs, undefined) : unchanged(state);
    case "shutdown":
      // The active run is cancelled in one place (ActiveRun); here only the stream ends. A turn
      // that already completed ends as completed.
      if (state.kind === "continuable") return end(state, nowMs, undefined, [{ kind: "disarm-continuation" }]);
      return state.kind === "ended" ? unchanged(state) : end(state, nowMs, RUN_CANCELLED());
    case "expire":
      return onExpire(state, nowMs, event.ttlMs);
  }
}

function onAppend<P>(state: RequestState, event: Extract<RequestEvent<P>, { kind: "append" }>, nowMs: number): Transition<P> {
  const effects: RequestEffect<P>[] = [];
  let current = state;
  if ((current.kind === "ended" || current.kind === "continuable") && isRenumbering(current, event)) {
    // Cursor reused a finished request id and numbers from 0 again: a new stream and
    // seqno order; the appends of the new numbering that overtook its seqno 0 were parked.
    // A continuation window still open closes first, as completed.
    const parked = current.kind === "ended" ? current.parked : [];
    if (current.kind === "continuable") effects.push({ kind: "disarm-continuation" }, { kind: "end-stream", error: undefined });
    current = { kind: "waiting", sinceMs: nowMs, inbox: new OrderedInbox(), firstAppend: undefined };
    for (const p of parked) current.inbox.push(p.seqno, p.message, p.bytes);
    effects.push({ kind: "open-stream" });
  }
  if (event.seqno === 0 && current.firstAppend === undefined) current = { ...current, firstAppend: event.bytes };
  // A heartbeat is answered at once, even across a gap; it still takes its seqno.
  if (event.message.message.case === "clientHeartbeat") effects.push({ kind: "heartbeat" });
  const bytes = event.bytes.byteLength;
  const held = heldBytes(current);
  const room = Math.min(REQUEST_HELD_MAX_BYTES - held, OBJECT_HELD_MAX_BYTES - held - (event.heldElsewhere ?? 0));
  if (current.kind === "ended" && event.seqno !== current.inbox.next) {
    // Nothing waits on an ended request; an append other than its next seqno may be the start of a renumbering.
    return { state: current, ...park(current, event, bytes, room), effects };
  }
  const pushed = current.inbox.push(event.seqno, event.message, bytes, room);
  if (pushed.status !== "released") return { state: current, effects, status: pushed.status };
  effects.push({ kind: "release", items: pushed.items });
  return { state: current, effects, status: "accepted" };
}

/**
 * Holds an append that reached an ended request, for a renumbering that may follow. A stale
 * seqno 0 is a retry of the first append (a renumbering was caught before); never parked.
 */
function park<P>(
  state: Extract<RequestState, { kind: "ended" }>,
  event: Extract<RequestEvent<P>, { kind: "append" }>,
  bytes: number,
  room: number,
): { state?: RequestState; status: AppendStatus } {
  const future = event.seqno > state.inbox.next;
  if (event.seqno > state.inbox.next + SEQNO_WINDOW) return { status: "too-far" };
  // A renumbering starts at 0, so only seqnos within its window can belong to it.
  if (event.seqno === 0 || event.seqno > SEQNO_WINDOW) return { status: "stale" };
  if (state.parked.some((p) => p.seqno === event.seqno)) return { status: "duplicate" };
  if (bytes > room) return { status: "overflow" };
  return {
    state: { ...state, parked: [...state.parked, { seqno: event.seqno, message: event.message, bytes }] },
    status: future ? "buffered" : "stale",
  };
}

/** A seqno-0 append on a finished request that is not a retry of its first one. */
function isRenumbering<P>(state: Common, event: Extract<RequestEvent<P>, { kind: "append" }>): boolean {
  if (event.seqno !== 0 || state.firstAppend === undefined) return false;
  return !sameBytes(state.firstAppend, event.bytes);
}

function onRunRequested<P>(state: RequestState, event: Extract<RequestEvent<P>, { kind: "run-requested" }>, nowMs: number): Transition<P> {
  const effects: RequestEffect<P>[] = [];
  let subscribers = event.subscribers;
  if (state.kind === "continuable" && event.continuation) {
    // The next turn goes on on the same stream.
    effects.push({ kind: "disarm-continuation" });
  } else if (state.kind === "ended" || state.kind === "continuable") {
    // Cursor may reuse a request id for a later turn: a fresh stream nobody listens to yet
    // (a window still open ends first, as completed).
    if (state.kind === "continuable") effects.push({ kind: "disarm-continuation" }, { kind: "end-stream", error: undefined });
    effects.push({ kind: "open-stream" });
    subscribers = 0;
  } else if (state.kind === "running" && "error" in event.planned) {
    effects.push({ kind: "cancel-run", runId: state.runId, reason: "replaced by a newer run_request" });
  }
  if ("error" in event.planned) return end(state, nowMs, event.planned.error, effects);
  // A replaced run on this request is cancelled by ActiveRun when the new one starts; the stream goes on.
  effects.push({ kind: "start-run", runId: event.runId, plan: event.planned.plan });
  const alreadyArmed = state.kind === "running" && state.graceArmed;
  // Nobody listening (yet, or any more): the disconnect grace applies from the start.
  const graceArmed = alreadyArmed || subscribers === 0;
  if (graceArmed && !alreadyArmed) effects.push({ kind: "arm-grace" });
  return { state: { kind: "running", runId: event.runId, graceArmed, inbox: state.inbox, firstAppend: state.firstAppend }, effects };
}

function onClientMessage<P>(state: RequestState, message: AgentClientMessage, nowMs: number): Transition<P> {
  const runId = state.kind === "running" ? state.runId : null;
  switch (message.message.case) {
    case "conversationAction": {
      const action = message.message.value;
      if (state.kind === "continuable") {
        // In the continuation window a user message is the next turn; a cancel just closes the window.
        if (action.action.case === "userMessageAction") return { state, effects: [{ kind: "continue", action }] };
        if (action.action.case === "cancelAction") return end(state, nowMs, undefined, [{ kind: "disarm-continuation" }]);
      }
      return { state, effects: [{ kind: "runtime-action", runId, action }] };
    }
    case "execClientMessage":
    case "execClientControlMessage":
    case "kvClientMessage":
    case "interactionResponse":
      // Replies for a run that is gone have nobody to reach.
      return runId === null ? unchanged(state) : { state, effects: [{ kind: "deliver", runId, message }] };
    default:
      // Heartbeats were answered on arrival; prewarm requests need nothing.
      return unchanged(state);
  }
}

/** When a request in this state may be forgotten (ended, or waiting for its run_request); undefined: not while it runs. */
export function expiresAtMs(state: RequestState, ttlMs: number): number | undefined {
  if (state.kind === "ended") return state.atMs + ttlMs;
  if (state.kind === "waiting") return state.sinceMs + ttlMs;
  return undefined;
}

function onExpire<P>(state: RequestState, nowMs: number, ttlMs: number): Transition<P> {
  const expires = expiresAtMs(state, ttlMs);
  if (expires === undefined || expires >= nowMs) return unchanged(state);
  if (state.kind === "ended") return { state, effects: [{ kind: "forget" }] };
  if (state.kind === "waiting") {
    const ended = end<P>(state, nowMs, new AppError("deadline_exceeded", "no run_request arrived for this request"));
    return { state: ended.state, effects: [...ended.effects, { kind: "forget" }] };
  }
  return unchanged(state);
}

function end<P>(state: RequestState, nowMs: number, error: AppError | undefined, before: RequestEffect<P>[] = []): Transition<P> {
  // Appends still waiting for a gap belong to a stream that is over: free them now.
  state.inbox.dropWaiting();
  const effects: RequestEffect<P>[] = [...before, { kind: "end-stream", error }];
  if (state.kind === "running" && state.graceArmed) effects.push({ kind: "disarm-grace" });
  return { state: { kind: "ended", atMs: nowMs, parked: [], inbox: state.inbox, firstAppend: state.firstAppend }, effects };
}

function unchanged<P>(state: RequestState): Transition<P> {
  return { state, effects: [] };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}
