// One Cursor request (RunSSE + its BidiAppends) inside a conversation object:
// its ordered inbox, its replaying output, and where its run stands.
import type { AgentClientMessage } from "../proto/gen/agent/v1/agent_pb.ts";
import { OrderedInbox } from "./inbox.ts";
import { Outbox } from "./outbox.ts";
import type { RunHandle } from "./run-handle.ts";
import type { RequestChannel, RequestIds } from "../agent/request-channel.ts";

export type TransportState =
  | { kind: "waiting" } // no run_request yet (RunSSE or a heartbeat came first)
  | { kind: "running"; run: RunHandle }
  | { kind: "ended"; atMs: number }; // the end-stream frame is written

export class Transport {
  readonly inbox: OrderedInbox<AgentClientMessage>;
  readonly outbox: Outbox;
  state: TransportState = { kind: "waiting" };
  /** The request's exec/KV id space, continued by each run on this request. */
  readonly ids: RequestIds;
  /** Injection ids already rejected for naming another run (each is rejected once). */
  readonly rejectedInjections = new Set<string>();
  /** Running while no subscriber is attached; cancels the run when it fires. */
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  readonly createdAtMs = Date.now();

  constructor(
    readonly requestId: string,
    onDetach: (transport: Transport, remaining: number) => void,
    /** A request reused after its stream ended keeps its id space (and its seqno order unless renumbered). */
    previous?: Transport,
    options: { freshInbox?: boolean } = {},
  ) {
    this.outbox = new Outbox((remaining) => onDetach(this, remaining));
    this.inbox = (!options.freshInbox && previous?.inbox) || new OrderedInbox<AgentClientMessage>();
    this.ids = previous?.ids ?? { nextId: 1, nextKvId: 0 };
    // A restart's own seqno 0 is recorded afresh; a renewal keeps the request's.
    this.firstPayload = options.freshInbox ? undefined : previous?.firstPayload;
  }

  /** Appends that reached this ended request with an old seqno (a restart's new numbering, maybe). */
  readonly parked: { seqno: number; message: AgentClientMessage }[] = [];
  /** The bytes of this request's seqno-0 append, to tell a repeat from a restart. */
  firstPayload: Uint8Array | undefined;

  /** The reverse-RPC channel of the running run, if any. */
  get channel(): RequestChannel | null {
    return this.state.kind === "running" ? this.state.run.channel : null;
  }
}
