// One Cursor request (RunSSE + its BidiAppends) inside a conversation object:
// its ordered inbox, its replaying output, and where its run stands.
import type { AgentClientMessage } from "../proto/gen/agent/v1/agent_pb.ts";
import { OrderedInbox } from "./inbox.ts";
import { Outbox } from "./outbox.ts";
import type { RunHandle } from "./run-handle.ts";
import type { RequestChannel } from "../agent/client-channel.ts";

export type TransportState =
  | { kind: "waiting" } // no run_request yet (RunSSE or a heartbeat came first)
  | { kind: "running"; run: RunHandle }
  | { kind: "ended" }; // the end-stream frame is written

export class Transport {
  readonly inbox = new OrderedInbox<AgentClientMessage>();
  readonly outbox: Outbox;
  state: TransportState = { kind: "waiting" };
  /** The reverse-RPC channel of the running run, if any. */
  channel: RequestChannel | null = null;
  /** The request's exec/KV id space, continued by each run on this request. */
  ids = { nextId: 1, nextKvId: 0 };
  /** Running while no subscriber is attached; cancels the run when it fires. */
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  readonly createdAtMs = Date.now();

  constructor(
    readonly requestId: string,
    onDetach: (transport: Transport, remaining: number) => void,
  ) {
    this.outbox = new Outbox((remaining) => onDetach(this, remaining));
  }
}
