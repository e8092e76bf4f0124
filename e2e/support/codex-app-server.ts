// Drives `codex app-server` over its stdio protocol: JSON-RPC 2.0 messages
// without the "jsonrpc" member, one per line (learnt from `codex app-server
// generate-json-schema`: JSONRPCRequest {id, method, params}, JSONRPCResponse
// {id, result}, JSONRPCError {id, error{code, message}}, JSONRPCNotification
// {method, params}). The child runs in its own process group; every wait is bounded.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { withTimeout } from "../../test/support/deferred.ts";

const STOP_GRACE_MS = 3_000;
/** JSON-RPC "method not found": the answer to any request the server makes of this client. */
const METHOD_NOT_FOUND = -32601;

interface Notification {
  method: string;
  params?: unknown;
}

type Incoming = { id: number | string; result?: unknown; error?: { code: number; message: string }; method?: string; params?: unknown };

export interface AppServerOptions {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export class AppServer {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly #notifications: Notification[] = [];
  readonly #waiters = new Set<() => void>();
  /** Requests the server made of this client (approvals, user input): answered "method not found", listed here. */
  readonly serverRequests: string[] = [];
  #nextId = 1;
  #stderr = "";
  #exitNote: string | undefined;

  constructor(options: AppServerOptions) {
    this.#child = spawn(options.binary, ["app-server", ...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true, // setsid: one signal to the group ends it and its helpers
    });
    this.#exited = new Promise((resolve) => this.#child.once("close", () => resolve()));
    this.#child.once("exit", (code, signal) => {
      this.#exitNote = `codex app-server exited (code ${code}, signal ${signal})`;
      for (const { reject } of this.#pending.values()) reject(new Error(this.#exitNote));
      this.#pending.clear();
      this.#wake();
    });
    this.#child.once("error", (error) => {
      this.#exitNote = `codex app-server could not run: ${error.message}`;
      this.#wake();
    });
    this.#child.stderr?.on("data", (data: Buffer) => {
      this.#stderr += data.toString();
    });
    createInterface({ input: this.#child.stdout! }).on("line", (line) => this.#receive(line));
  }

  /** The last lines of the server's stderr (its log), for failure messages. */
  stderrTail(lines = 30): string {
    return this.#stderr.split("\n").slice(-lines).join("\n"); // NO_COLOR is set: plain text
  }

  notifications(): readonly Notification[] {
    return this.#notifications;
  }

  async request<T>(method: string, params: unknown, timeoutMs: number): Promise<T> {
    if (this.#exitNote) throw new Error(this.#exitNote);
    const id = this.#nextId++;
    const answer = new Promise<unknown>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#send({ id, method, params });
    return (await withTimeout(answer, timeoutMs, `the answer to ${method}`)) as T;
  }

  notify(method: string, params?: unknown): void {
    this.#send(params === undefined ? { method } : { method, params });
  }

  /** The first notification (already received or still to come) that `match` accepts. */
  async waitFor(what: string, match: (n: Notification) => boolean, timeoutMs: number): Promise<Notification> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.#notifications.find(match);
      if (found) return found;
      if (this.#exitNote) throw new Error(`${this.#exitNote} before ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await withTimeout(new Promise<void>((resolve) => this.#waiters.add(resolve)), left, what).catch(() => {});
    }
  }

  /** Closes stdin (the server's cue to exit), then ends the process group. Idempotent. */
  async stop(): Promise<void> {
    this.#child.stdin?.end();
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      killGroup(this.#child, "SIGTERM");
      const graceful = await withTimeout(this.#exited, STOP_GRACE_MS, "exit").then(
        () => true,
        () => false,
      );
      if (!graceful) killGroup(this.#child, "SIGKILL");
    }
    killGroup(this.#child, "SIGKILL"); // helpers it left in its group
    await withTimeout(this.#exited, STOP_GRACE_MS, "exit").catch(() => {});
  }

  #send(message: object): void {
    this.#child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  #receive(line: string): void {
    let message: Incoming;
    try {
      message = JSON.parse(line) as Incoming;
    } catch {
      return; // not protocol (the server logs to stderr; nothing else is expected here)
    }
    if (message.method !== undefined && message.id !== undefined) {
      this.serverRequests.push(message.method);
      this.#send({ id: message.id, error: { code: METHOD_NOT_FOUND, message: `the e2e client does not answer ${message.method}` } });
    } else if (message.method !== undefined) {
      this.#notifications.push({ method: message.method, params: message.params });
      this.#wake();
    } else if (typeof message.id === "number") {
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error) pending?.reject(new Error(`app-server error ${message.error.code}: ${message.error.message}`));
      else pending?.resolve(message.result);
    }
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
