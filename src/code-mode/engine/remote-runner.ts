// Cells in a cell host, another process that can stop them (docs/code-mode.md#cell-host):
// used where the platform cannot preempt an isolate (local workerd, self-hosted), because a
// busy loop in an isolate of this process would stop every request it serves. One
// WebSocket per cell; the cell host ends the socket with a `limit-exceeded` result when the
// cell passes its CPU, memory or wall-time limit, or when the session closes it.
import { FrameReader, sendMessage, type RunnerMessage, type SessionMessage } from "./cell-wire.ts";
import type { CellCallbacks, CellLaunch, CellRunner, CellRunResult, RunningCell } from "./runner.ts";

/** The part of a WebSocket this runner uses (the Workers one and the WHATWG one both fit). */
export interface WireSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(type: "close" | "error", listener: () => void): void;
}

export type WireConnect = (url: string) => Promise<WireSocket>;

/** How long stop() waits for the cell to end before it drops the socket (the cell host then kills it). */
const STOP_GRACE_MS = 1_000;

/**
 * A cell reports its start from inside its isolate; one that spins from its first line never gets
 * the chance (its process's event loop is taken). Its yield timer then starts this long after the
 * cell host delivered it (isolates start in about 10–50 ms here).
 */
const START_FALLBACK_MS = 250;

/** A WebSocket from a Worker: fetch with `Upgrade` (a Worker has no WebSocket constructor for http URLs). */
const workersConnect: WireConnect = async (url) => {
  const response = await fetch(url, { headers: { Upgrade: "websocket" } });
  const socket = (response as Response & { webSocket?: WebSocket | null }).webSocket;
  if (!socket) throw new Error(`the cell host answered ${response.status}, not a WebSocket`);
  socket.accept();
  return socket as unknown as WireSocket;
};

export class RemoteCellRunner implements CellRunner {
  readonly #url: string;
  readonly #cpuMs: number;
  readonly #connect: WireConnect;

  /** `url`: the cell host's `/cell` endpoint; `cpuMs`: each cell's CPU limit. */
  constructor(url: string, cpuMs: number, connect: WireConnect = workersConnect) {
    this.#url = url;
    this.#cpuMs = cpuMs;
    this.#connect = connect;
  }

  start(launch: CellLaunch, callbacks: CellCallbacks): RunningCell {
    const ended = Promise.withResolvers<CellRunResult>();
    let socket: WireSocket | undefined;
    let finished = false;
    let fallback: ReturnType<typeof setTimeout> | undefined;
    const finish = (result: CellRunResult) => {
      if (finished) return;
      finished = true;
      if (fallback !== undefined) clearTimeout(fallback);
      ended.resolve(result);
      socket?.close(1000, "cell ended");
    };
    const send = (message: SessionMessage) => {
      if (finished || socket === undefined) return;
      sendMessage(socket, message);
    };
    const opened = this.#open(
      (message) => {
        if (message.t === "started") callbacks.started();
        else if (message.t === "delivered") fallback ??= setTimeout(() => callbacks.started(), START_FALLBACK_MS);
        else if (message.t === "events") callbacks.events(message.events);
        else if (message.t === "tool") {
          callbacks.callTool(message.index, message.inputJson).then(
            (reply) => send({ t: "tool-reply", id: message.id, reply }),
            (error: unknown) => send({ t: "tool-reply", id: message.id, reply: { ok: false, message: String(error) } }),
          );
        } else if (message.t === "result") finish(message.result);
      },
      () => finish({ kind: "crashed", reason: "the cell host closed the cell's connection" }),
    );
    opened.then(
      (open) => {
        socket = open;
        if (finished) open.close(1000, "cell stopped");
        else send({ t: "start", launch, cpuMs: this.#cpuMs });
      },
      (error: unknown) => finish({ kind: "crashed", reason: `the cell host at ${this.#url} is unreachable: ${String(error)}` }),
    );
    return {
      result: ended.promise,
      stop: async () => {
        send({ t: "stop" });
        let timer: ReturnType<typeof setTimeout> | undefined;
        const grace = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, STOP_GRACE_MS);
        });
        await Promise.race([ended.promise, grace]);
        if (timer !== undefined) clearTimeout(timer);
        // Still running (a busy loop cannot hear "stop"): dropping the socket makes the cell host kill it.
        finish({ kind: "stopped" });
      },
    };
  }

  async syntaxError(source: string): Promise<string | undefined> {
    const answer = Promise.withResolvers<string | undefined>();
    const socket = await this.#open(
      (message) => {
        if (message.t === "probe-result") answer.resolve(message.text);
      },
      () => answer.resolve(undefined),
    );
    try {
      sendMessage(socket, { t: "probe", source });
      return await answer.promise;
    } finally {
      socket.close(1000, "probe answered");
    }
  }

  async #open(onMessage: (message: RunnerMessage) => void, onClose: () => void): Promise<WireSocket> {
    const socket = await this.#connect(this.#url);
    const reader = new FrameReader<RunnerMessage>();
    socket.addEventListener("message", (event) => {
      if (typeof event.data !== "string") return;
      const message = reader.push(event.data);
      if (message !== undefined) onMessage(message);
    });
    socket.addEventListener("close", onClose);
    socket.addEventListener("error", onClose);
    return socket;
  }
}
