// A code-mode session seen from the client: the OpenSession stream (the lease)
// read in the background, its events collected, notifications acknowledged
// (unless told not to), and bounded waits for a given event.
import { ConnectError } from "@connectrpc/connect";
import type { CellClosed, Notification, SessionEvent, ToolCallCancelled } from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { deferred } from "../../support/deferred.ts";
import { bounded } from "./bounds.ts";
import type { CodeModeClient } from "./targets.ts";

export interface SessionOptions {
  maxYieldTimeMs?: number;
  maxHeapSizeBytes?: number;
  /** Acknowledge each notification as it arrives (default true). */
  ack?: boolean;
}

/** How the lease stream ended: OK, or with a Connect error. */
export interface LeaseEnd {
  error?: ConnectError;
}

type Waiter = { match: (event: SessionEvent) => boolean; resolve: (event: SessionEvent) => void };

export class Session {
  /** Every event after `opened`, in order. */
  readonly events: SessionEvent[] = [];
  readonly ended: Promise<LeaseEnd>;
  #waiters: Waiter[] = [];
  #lease = new AbortController();
  #endedNow = false;

  private constructor(
    readonly client: CodeModeClient,
    readonly id: string,
    stream: AsyncIterator<SessionEvent>,
    ack: boolean,
  ) {
    this.ended = this.#read(stream, ack);
  }

  static async open(client: CodeModeClient, options: SessionOptions = {}): Promise<Session> {
    const limits =
      options.maxYieldTimeMs === undefined && options.maxHeapSizeBytes === undefined
        ? undefined
        : {
            maxYieldTimeMs: options.maxYieldTimeMs === undefined ? undefined : BigInt(options.maxYieldTimeMs),
            maxHeapSizeBytes: options.maxHeapSizeBytes === undefined ? undefined : BigInt(options.maxHeapSizeBytes),
          };
    const lease = new AbortController();
    const stream = client.openSession({ cellExecutionLimits: limits }, { signal: lease.signal })[Symbol.asyncIterator]();
    const first = await bounded(stream.next(), "the session's opened event");
    if (first.done || first.value.event.case !== "opened")
      throw new Error(`the lease did not start with opened: ${JSON.stringify(first.value)}`);
    const session = new Session(client, first.value.event.value.sessionId, stream, options.ack ?? true);
    session.#lease = lease;
    return session;
  }

  async #read(stream: AsyncIterator<SessionEvent>, ack: boolean): Promise<LeaseEnd> {
    try {
      for (;;) {
        const next = await stream.next();
        if (next.done) return {};
        const event = next.value;
        this.events.push(event);
        if (ack && event.event.case === "notification") {
          const notificationId = event.event.value.notificationId;
          void this.client.acknowledgeNotification({ sessionId: this.id, notificationId }).catch(() => {});
        }
        for (const waiter of this.#waiters.filter((w) => w.match(event))) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    } catch (error) {
      return { error: ConnectError.from(error) };
    } finally {
      this.#endedNow = true;
    }
  }

  /** True once the lease stream has ended (either way). */
  get leaseEnded(): boolean {
    return this.#endedNow;
  }

  /** The first event (seen already or later) that `match` accepts. */
  event(match: (event: SessionEvent) => boolean, what: string, ms?: number): Promise<SessionEvent> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    const found = deferred<SessionEvent>();
    this.#waiters.push({ match, resolve: found.resolve });
    return bounded(
      Promise.race([
        found.promise,
        this.ended.then((end) => {
          throw new Error(`the lease ended (${end.error?.message ?? "OK"}) before ${what}`);
        }),
      ]),
      what,
      ms,
    );
  }

  async cellClosed(cellId: string): Promise<CellClosed> {
    const event = await this.event(
      (e) => e.event.case === "cellClosed" && e.event.value.cellId === cellId,
      `cell_closed for cell ${cellId}`,
    );
    return event.event.value as CellClosed;
  }

  async notification(match: (n: Notification) => boolean = () => true): Promise<Notification> {
    const event = await this.event((e) => e.event.case === "notification" && match(e.event.value), "a notification");
    return event.event.value as Notification;
  }

  async toolCallCancelled(invocationId: string): Promise<ToolCallCancelled> {
    const event = await this.event(
      (e) => e.event.case === "toolCallCancelled" && e.event.value.invocationId === invocationId,
      `tool_call_cancelled for ${invocationId}`,
    );
    return event.event.value as ToolCallCancelled;
  }

  closedCells(): string[] {
    return this.events.flatMap((e) => (e.event.case === "cellClosed" ? [e.event.value.cellId] : []));
  }

  /** The client goes away: the lease stream is cancelled (no CloseSession). */
  dropLease(): void {
    this.#lease.abort();
  }

  async close(): Promise<void> {
    await bounded(this.client.closeSession({ sessionId: this.id }), "CloseSession");
  }
}
