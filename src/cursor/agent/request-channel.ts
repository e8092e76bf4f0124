// The reverse RPCs of one request: exec, interaction and KV messages the server
// sends on RunSSE, matched with the client's replies by numeric id only.
import type {
  AgentServerMessage,
  ExecClientControlMessage,
  ExecClientMessage,
  InteractionResponse,
  KvClientMessage,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import { execAbort, execRequest, interactionQuery, kvRequest } from "../../proto/frames.ts";
import type { ClientChannel, ExecArgs, ExecCall, ExecEvent, InteractionQueryInit } from "../tools/tool-types.ts";

interface OpenExec {
  toolCallId: string;
  queue: ExecEvent[];
  waiter: ((event: ExecEvent) => void) | undefined;
  /** Left running when their round is interrupted: Task execs (the subagent goes on), code-mode cells' calls (the cell goes on). */
  detached: boolean;
}

interface Pending<T> {
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

export class RequestChannel implements ClientChannel {
  /**
   * Exec and interaction ids share one space from 1, KV ids another from 0; both
   * belong to the request (shared by every run on it), so ids are never reused.
   */
  readonly #ids: RequestIds;
  readonly #execs = new Map<number, OpenExec>();
  readonly #interactions = new Map<number, Pending<InteractionResponse>>();
  readonly #kv = new Map<number, Pending<KvClientMessage>>();
  /** Restarts a KV wait's deadline: it measures the client's silence, not how long a large blob takes to arrive. */
  readonly #kvDeadlines = new Map<number, () => void>();
  readonly #abortWaiters = new Set<(reason: unknown) => void>();

  constructor(
    readonly emit: (message: AgentServerMessage) => void,
    readonly signal: AbortSignal,
    /** The request's id counters, advanced in place (a request can carry several runs). */
    ids: RequestIds = { nextId: 1, nextKvId: 0 },
  ) {
    this.#ids = ids;
    signal.addEventListener("abort", () => {
      for (const reject of this.#abortWaiters) reject(signal.reason);
      this.#abortWaiters.clear();
    });
  }

  exec(args: ExecArgs, options: { toolCallId?: string; acceptHookAdditionalContexts?: boolean; detached?: boolean } = {}): ExecCall {
    this.signal.throwIfAborted();
    const id = this.#ids.nextId++;
    const toolCallId = options.toolCallId ?? "";
    const detached = options.detached ?? args?.case === "subagentArgs";
    const open: OpenExec = { toolCallId, queue: [], waiter: undefined, detached };
    this.#execs.set(id, open);
    this.emit(execRequest(id, toolCallId, args, options.acceptHookAdditionalContexts));
    return {
      id,
      next: () => {
        const queued = open.queue.shift();
        if (queued) return Promise.resolve(queued);
        return this.#wait<ExecEvent>((resolve) => {
          open.waiter = resolve;
        });
      },
    };
  }

  interaction(query: InteractionQueryInit): Promise<InteractionResponse> {
    this.signal.throwIfAborted();
    const id = this.#ids.nextId++;
    const reply = this.#wait<InteractionResponse>((resolve, reject) => this.#interactions.set(id, { resolve, reject }));
    this.emit(interactionQuery(id, query));
    return reply;
  }

  /** Sends a KV request and resolves with the client's reply, or rejects after `timeoutMs`. */
  kv(request: KvRequest, timeoutMs: number): Promise<KvClientMessage> {
    this.signal.throwIfAborted();
    const id = this.#ids.nextKvId++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reply = this.#wait<KvClientMessage>((resolve, reject) => {
      this.#kv.set(id, { resolve, reject });
      const arm = () => {
        if (timer !== undefined) clearTimeout(timer);
        timer = setTimeout(() => {
          this.#kv.delete(id);
          reject(new KvTimeoutError(request.case));
        }, timeoutMs);
      };
      this.#kvDeadlines.set(id, arm);
      arm();
    }).finally(() => {
      if (timer !== undefined) clearTimeout(timer);
      this.#kvDeadlines.delete(id);
    });
    this.emit(kvRequest(id, request));
    return reply;
  }

  deliverExec(message: ExecClientMessage): void {
    // An empty result means the client is still working on it.
    if (message.message.case === undefined) return;
    this.#push(message.id, { kind: "message", message });
  }

  deliverControl(control: ExecClientControlMessage): void {
    switch (control.message.case) {
      case "streamClose":
        this.#push(control.message.value.id, { kind: "stream_close" });
        return;
      case "throw":
        this.#push(control.message.value.id, { kind: "throw", error: control.message.value.error || "the client failed to run the tool" });
        return;
      default:
        // Per-exec heartbeats only say the client is alive: that much counts for the KV waits.
        this.clientAlive();
        return;
    }
  }

  deliverInteraction(response: InteractionResponse): void {
    const pending = this.#interactions.get(response.id);
    if (!pending || response.result.case === undefined) return;
    this.#interactions.delete(response.id);
    pending.resolve(response);
  }

  deliverKv(message: KvClientMessage): void {
    const pending = this.#kv.get(message.id);
    if (!pending) return;
    this.#kv.delete(message.id);
    pending.resolve(message);
    this.clientAlive();
  }

  /**
   * The client showed it is there (a heartbeat, a reply): every KV wait's deadline starts again,
   * so a slow link that is still receiving an answer's blobs is not cut off (docs/protocol.md#checkpoints).
   */
  clientAlive(): void {
    for (const arm of this.#kvDeadlines.values()) arm();
  }

  /** Forgets the execs of a finished tool call so they are not aborted later. */
  release(toolCallId: string): void {
    for (const [id, open] of this.#execs) if (open.toolCallId === toolCallId) this.#execs.delete(id);
  }

  /** Forgets one finished exec, when others may share its tool call id (request_context_args). */
  releaseExec(id: number): void {
    this.#execs.delete(id);
  }

  /**
   * Sends exec_server_control_message.abort for every exec still open, except
   * detached (Task) execs unless `includeDetached`.
   */
  abortOpenExecs(options: { includeDetached?: boolean; toolCallId?: string } = {}): void {
    for (const [id, open] of this.#execs) {
      if (open.detached && !options.includeDetached) continue;
      if (options.toolCallId !== undefined && open.toolCallId !== options.toolCallId) continue;
      this.#execs.delete(id);
      this.emit(execAbort(id));
    }
  }

  /**
   * Aborts the execs of one tool call (cancel_subagent) and tells the waiting
   * tool, so it returns an error result and the parent run goes on.
   */
  abortToolCall(toolCallId: string, reason: string): void {
    for (const open of this.#execs.values()) {
      if (open.toolCallId !== toolCallId) continue;
      this.abortOpenExecs({ includeDetached: true, toolCallId });
      const event: ExecEvent = { kind: "throw", error: reason };
      if (open.waiter) {
        const waiter = open.waiter;
        open.waiter = undefined;
        waiter(event);
      } else {
        open.queue.push(event);
      }
    }
  }

  #push(id: number, event: ExecEvent): void {
    const open = this.#execs.get(id);
    if (!open) return; // unknown or already finished: ignored, as the client may repeat itself
    if (event.kind !== "message") this.#execs.delete(id);
    const waiter = open.waiter;
    if (waiter) {
      open.waiter = undefined;
      waiter(event);
    } else {
      open.queue.push(event);
    }
  }

  /** A promise that also rejects when the run is aborted. */
  #wait<T>(register: (resolve: (value: T) => void, reject: (reason: unknown) => void) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.signal.aborted) {
        reject(this.signal.reason);
        return;
      }
      const onAbort = (reason: unknown) => reject(reason);
      this.#abortWaiters.add(onAbort);
      register(
        (value) => {
          this.#abortWaiters.delete(onAbort);
          resolve(value);
        },
        (reason) => {
          this.#abortWaiters.delete(onAbort);
          reject(reason);
        },
      );
    });
  }
}

export interface RequestIds {
  nextId: number;
  nextKvId: number;
}

export type KvRequest =
  | { case: "setBlobArgs"; value: { blobId: Uint8Array; blobData: Uint8Array } }
  | { case: "getBlobArgs"; value: { blobId: Uint8Array } };

export class KvTimeoutError extends Error {
  override readonly name = "KvTimeoutError";
  constructor(kind: KvRequest["case"]) {
    super(`the client did not answer ${kind === "setBlobArgs" ? "set_blob" : "get_blob"} in time`);
  }
}
