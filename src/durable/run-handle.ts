// A live run: its id, where its output goes, how to stop it, and how to steer it.
import type { AgentServerMessage } from "../proto/gen/agent/v1/agent_pb.ts";
import { RunControl } from "../agent/run-control.ts";
import { RequestChannel } from "../agent/request-channel.ts";
import type { Transport } from "./transport.ts";

export class RunHandle {
  readonly #controller = new AbortController();
  readonly control: RunControl;
  /** This run's reverse RPCs; ids continue the request's id space. */
  readonly channel: RequestChannel;

  constructor(
    readonly runId: string,
    readonly transport: Transport,
    emit: (message: AgentServerMessage) => void,
  ) {
    this.control = new RunControl(this.#controller.signal, emit);
    this.channel = new RequestChannel(emit, this.#controller.signal, transport.ids);
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cancelled(): boolean {
    return this.#controller.signal.aborted;
  }

  cancel(reason: string): void {
    if (!this.#controller.signal.aborted) {
      this.#controller.abort(new DOMException(reason, "AbortError"));
    }
  }
}
