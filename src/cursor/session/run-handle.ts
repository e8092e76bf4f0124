// A live run: its id, how to stop it, how to steer it, and its reverse RPCs to the client.
import type { AgentServerMessage } from "../../proto/gen/agent/v1/agent_pb.ts";
import { RunControl } from "../agent/run-control.ts";
import { RequestChannel, type RequestIds } from "../agent/request-channel.ts";

export class RunHandle {
  readonly #controller = new AbortController();
  readonly control: RunControl;
  /** This run's reverse RPCs; ids continue the request's id space. */
  readonly channel: RequestChannel;

  constructor(
    readonly runId: string,
    ids: RequestIds,
    emit: (message: AgentServerMessage) => void,
  ) {
    this.control = new RunControl(this.#controller.signal, emit);
    this.channel = new RequestChannel(emit, this.#controller.signal, ids);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  cancel(reason: string): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(new DOMException(reason, "AbortError"));
  }
}
