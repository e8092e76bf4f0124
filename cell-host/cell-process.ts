// One workerd process that runs one cell, then is killed: a cell that loops or allocates
// without end stops only its own process, and cells of different users never share one.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import pidusage from "pidusage";
import workerd from "workerd";

/** Node's ESM sees the CommonJS exports object; a bundler's interop (vitest's) the path itself. */
const WORKERD = typeof workerd === "string" ? workerd : workerd.default;
/** How long a new process may take to listen. */
const START_TIMEOUT_MS = 20_000;

export interface Usage {
  cpuMs: number;
  rssBytes: number;
}

export class CellProcess {
  readonly #child: ChildProcess;
  readonly port: Promise<number>;
  /** Settles when the process has exited (with how it ended). */
  readonly exited: Promise<string>;

  constructor(config: string) {
    // fd 3: workerd's control channel, where it reports the port it listens on.
    this.#child = spawn(WORKERD, ["serve", config, "--experimental", "--control-fd=3"], {
      stdio: ["ignore", "ignore", "pipe", "pipe"],
    });
    this.#child.stderr?.resume();
    this.exited = new Promise((resolve) => {
      this.#child.once("exit", (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`));
      this.#child.once("error", (error) => resolve(error.message));
    });
    this.port = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("a cell process did not start listening")), START_TIMEOUT_MS);
      void this.exited.then((how) => reject(new Error(`a cell process ended before it listened (${how})`)));
      const lines = createInterface({ input: this.#child.stdio[3] as Readable });
      lines.on("line", (line) => {
        const event = JSON.parse(line) as { event?: string; port?: number };
        if (event.event === "listen" && typeof event.port === "number") {
          clearTimeout(timer);
          resolve(event.port);
        }
      });
    });
    this.port.catch(() => this.kill());
  }

  /** Its CPU time so far and its resident memory now. */
  async usage(): Promise<Usage> {
    const pid = this.#child.pid;
    if (pid === undefined) throw new Error("the cell process has no pid");
    const stat = await pidusage(pid);
    return { cpuMs: stat.ctime, rssBytes: stat.memory };
  }

  kill(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill("SIGKILL");
  }
}
