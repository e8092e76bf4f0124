// The cell host (docs/code-mode.md#cell-host): an HTTP server on 127.0.0.1 whose `/cell`
// WebSocket runs one cell in a fresh workerd process, relays the cell's messages both ways,
// and watches the process from outside: past the cell's CPU time, memory or wall time it
// kills the process and answers `limit-exceeded`, which the session reports as a
// terminated cell. Nothing a cell does reaches the server that asked for it.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import { FrameReader, sendMessage, type RunnerMessage, type SessionMessage } from "../src/code-mode/engine/cell-wire.ts";
import type { CellRunResult } from "../src/code-mode/engine/runner.ts";
import { writeCellWorker } from "./bundle.ts";
import type { CellProcess, Usage } from "./cell-process.ts";
import type { CellHostOptions } from "./options.ts";
import { ProcessPool } from "./pool.ts";

/** How often a running cell's process is measured. */
const WATCH_INTERVAL_MS = 50;
/** How long a lost connection to a process waits to learn how the process ended. */
const EXIT_GRACE_MS = 1_000;
/** Signals a process dies of when V8 aborts (out of memory, most often). */
const ABORT_SIGNALS = ["signal SIGABRT", "signal SIGTRAP", "signal SIGILL", "signal SIGSEGV"];

export interface CellHost {
  /** The `/cell` endpoint, for CODE_MODE_CELL_HOST. */
  url: string;
  /** Cells running now. */
  running(): number;
  close(): Promise<void>;
}

export async function startCellHost(options: CellHostOptions): Promise<CellHost> {
  const dir = mkdtempSync(join(tmpdir(), "byok-cell-host-"));
  const pool = new ProcessPool(await writeCellWorker(dir), options.warm);
  const cells = new Set<CellRelay>();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
  const server = createServer((_request, response) => {
    response.writeHead(426, { "content-type": "text/plain" }).end("byok-edge cell host: WebSocket on /cell\n");
  });
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (new URL(request.url ?? "/", "http://host").pathname !== "/cell") {
      socket.end("HTTP/1.1 404 Not Found\r\n\r\n");
      return;
    }
    sockets.handleUpgrade(request, socket, head, (session) => {
      const full = cells.size >= options.maxCells;
      const relay = new CellRelay(session, full ? undefined : pool.take(), options, () => cells.delete(relay));
      if (!full) cells.add(relay);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", resolve);
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/cell`,
    running: () => cells.size,
    close: () => {
      closed ??= (async () => {
        pool.close();
        for (const cell of cells) cell.end();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        rmSync(dir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

/** One cell: its session's socket, its process, and the watch over the process. */
class CellRelay {
  readonly #session: WebSocket;
  readonly #process: CellProcess | undefined;
  readonly #options: CellHostOptions;
  readonly #onEnd: () => void;
  readonly #fromSession = new FrameReader<SessionMessage>();
  readonly #fromRunner = new FrameReader<RunnerMessage>();
  readonly #queued: string[] = [];
  #runner: WebSocket | undefined;
  #watch: ReturnType<typeof setInterval> | undefined;
  #wall: ReturnType<typeof setTimeout> | undefined;
  #ended = false;
  #sentDelivered = false;

  constructor(session: WebSocket, process: CellProcess | undefined, options: CellHostOptions, onEnd: () => void) {
    this.#session = session;
    this.#process = process;
    this.#options = options;
    this.#onEnd = onEnd;
    session.on("message", (data, isBinary) => this.#fromSessionFrame(isBinary ? "" : data.toString()));
    session.on("close", () => this.end());
    session.on("error", () => this.end());
    if (process === undefined) return;
    process.port.then(
      (port) => this.#connect(port),
      (error: unknown) => this.end({ kind: "crashed", reason: `no cell process: ${String(error)}` }),
    );
    void process.exited.then((how) => this.#lost(how));
  }

  /** Ends the cell: its verdict (if any) to the session, then the process is killed. Idempotent. */
  end(verdict?: CellRunResult): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#watch);
    clearTimeout(this.#wall);
    if (verdict !== undefined && this.#session.readyState === WebSocket.OPEN) {
      sendMessage(this.#session, { t: "result", result: verdict });
    }
    this.#session.close(1000, "cell ended");
    this.#runner?.terminate();
    this.#process?.kill();
    this.#onEnd();
  }

  #fromSessionFrame(frame: string): void {
    let message: SessionMessage | undefined;
    try {
      message = this.#fromSession.push(frame);
    } catch {
      this.end({ kind: "crashed", reason: "the cell host got a frame it does not understand" });
      return;
    }
    if (this.#process === undefined) {
      if (message !== undefined) this.#refuse(message);
      return;
    }
    if (message?.t === "start") this.#startWatch(message.cpuMs);
    if (this.#runner?.readyState === WebSocket.OPEN) {
      this.#runner.send(frame);
      this.#delivered();
    } else this.#queued.push(frame);
  }

  /** Tells the session once that its start reached the process (remote-runner.ts, START_FALLBACK_MS). */
  #delivered(): void {
    if (this.#watch === undefined || this.#sentDelivered) return;
    this.#sentDelivered = true;
    sendMessage(this.#session, { t: "delivered" });
  }

  /** The host is full: the cell fails at once, as a cell error the model can read. */
  #refuse(message: SessionMessage): void {
    const reply: RunnerMessage =
      message.t === "probe"
        ? { t: "probe-result", text: undefined }
        : {
            t: "result",
            result: {
              kind: "completed",
              writes: {},
              errorText: `code mode is busy: ${this.#options.maxCells} cells are running on this host; try again when one ends`,
            },
          };
    sendMessage(this.#session, reply);
    this.end();
  }

  #connect(port: number): void {
    if (this.#ended) return;
    const runner = new WebSocket(`ws://127.0.0.1:${port}/`, { maxPayload: 64 * 1024 * 1024 });
    this.#runner = runner;
    runner.on("open", () => {
      for (const frame of this.#queued.splice(0)) runner.send(frame);
      this.#delivered();
    });
    runner.on("message", (data) => {
      const frame = data.toString();
      if (this.#session.readyState === WebSocket.OPEN) this.#session.send(frame);
      const message = this.#fromRunner.push(frame);
      // The cell is over: what it does now (nothing) costs no one anything.
      if (message?.t === "result" || message?.t === "probe-result") clearInterval(this.#watch);
    });
    runner.on("close", () => void this.#processEnded());
    runner.on("error", () => void this.#processEnded());
  }

  async #processEnded(): Promise<void> {
    if (this.#ended || this.#process === undefined) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const how = await Promise.race([
      this.#process.exited,
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve("its connection closed"), EXIT_GRACE_MS);
      }),
    ]);
    clearTimeout(timer);
    this.#lost(how);
  }

  #lost(how: string): void {
    if (this.#ended) return;
    if (ABORT_SIGNALS.includes(how))
      this.end({ kind: "limit-exceeded", reason: `the cell's runtime aborted (${how}), most often out of memory` });
    else this.end({ kind: "crashed", reason: `the cell's process ended (${how})` });
  }

  #startWatch(requestedCpuMs: number): void {
    const process = this.#process;
    if (process === undefined || this.#watch !== undefined) return;
    const cap = this.#options.cpuCapMs;
    const cpuMs = cap > 0 ? Math.min(cap, requestedCpuMs) : requestedCpuMs;
    this.#wall = setTimeout(
      () => this.end({ kind: "limit-exceeded", reason: `wall time limit exceeded (${this.#options.wallMs} ms)` }),
      this.#options.wallMs,
    );
    let base: Usage | undefined;
    let measuring = false;
    this.#watch = setInterval(() => {
      if (measuring || this.#ended) return;
      measuring = true;
      process
        .usage()
        .then((now) => {
          base ??= now;
          if (now.cpuMs - base.cpuMs > cpuMs) this.end({ kind: "limit-exceeded", reason: `CPU time limit exceeded (${cpuMs} ms)` });
          else if (now.rssBytes - base.rssBytes > this.#options.memoryBytes) {
            this.end({ kind: "limit-exceeded", reason: `memory limit exceeded (${this.#options.memoryBytes / 1024 / 1024} MiB)` });
          }
        })
        .catch(() => {})
        .finally(() => {
          measuring = false;
        });
    }, WATCH_INTERVAL_MS);
  }
}
