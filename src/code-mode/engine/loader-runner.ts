// Cells on the Worker Loader (docs/code-mode.md#isolates): one fresh isolate per cell,
// without network (`globalOutbound: null`), with a CPU limit because a busy loop cannot
// be stopped any other way. The session's side of the boundary is `CellHost`, an
// RpcTarget passed as an argument of `run` (an RpcTarget cannot travel in `env`).
import { RpcTarget } from "cloudflare:workers";
import { HARNESS_MODULE, HARNESS_SOURCE } from "./harness.ts";
import { MEDIA_MODULE, MEDIA_SOURCE } from "./harness-media.ts";
import type { CellCallbacks, CellEvent, CellLaunch, CellRunner, CellRunResult, RunningCell, ToolReply } from "./runner.ts";
import { CELL_MODULE, syntaxErrorFromStartFailure } from "./cell-source.ts";

/** Not newer than the workerd that runs the project (wrangler.toml). */
const COMPATIBILITY_DATE = "2026-11-01";

/**
 * Production stops a cell past this much CPU time (locally nothing is enforced); the
 * session treats it as a termination. Waiting on tools or timers costs no CPU.
 */
export const CELL_CPU_MS = 30_000;

/** How long stop() waits for the isolate to return before it lets go of it. */
const STOP_GRACE_MS = 1_000;

interface HarnessResult {
  kind: "completed" | "stopped";
  writes?: Record<string, unknown>;
  errorText?: string;
}

interface HarnessEntrypoint {
  run(host: CellHost, init: { snapshot: Record<string, unknown>; tools: CellLaunch["tools"] }): Promise<HarnessResult>;
}

/** Releases an RPC stub or result now rather than at garbage collection (docs/code-mode.md#isolates). */
function dispose(stub: unknown): void {
  const key = (Symbol as unknown as { dispose?: symbol }).dispose;
  if (key === undefined || stub === null || typeof stub !== "object") return;
  const release = (stub as Record<symbol, unknown>)[key];
  if (typeof release === "function") release.call(stub);
}

/** The session's side of one cell, called from inside its isolate. */
class CellHost extends RpcTarget {
  readonly #callbacks: CellCallbacks;
  readonly #lease = Promise.withResolvers<void>();

  constructor(callbacks: CellCallbacks) {
    super();
    this.#callbacks = callbacks;
  }

  /** Called first by the harness (the cell has started); pending until the cell ends. */
  lease(): Promise<void> {
    this.#callbacks.started();
    return this.#lease.promise;
  }

  events(events: CellEvent[]): void {
    this.#callbacks.events(events);
  }

  callTool(index: number, inputJson: string | undefined): Promise<ToolReply> {
    return this.#callbacks.callTool(index, inputJson);
  }

  release(): void {
    this.#lease.resolve();
  }
}

export class LoaderCellRunner implements CellRunner {
  readonly #loader: WorkerLoader;
  readonly #cpuMs: number;

  /** `cpuMs`: each cell's CPU limit (docs/code-mode.md#limits), CELL_CPU_MS unless a team set its own. */
  constructor(loader: WorkerLoader, cpuMs = CELL_CPU_MS) {
    this.#loader = loader;
    this.#cpuMs = cpuMs;
  }

  start(launch: CellLaunch, callbacks: CellCallbacks): RunningCell {
    const host = new CellHost(callbacks);
    const worker = this.#loader.load({
      compatibilityDate: COMPATIBILITY_DATE,
      mainModule: HARNESS_MODULE,
      modules: { [HARNESS_MODULE]: HARNESS_SOURCE, [MEDIA_MODULE]: MEDIA_SOURCE, [CELL_MODULE]: { js: launch.moduleText } },
      globalOutbound: null,
      limits: { cpuMs: this.#cpuMs },
    });
    const entrypoint = worker.getEntrypoint() as unknown as HarnessEntrypoint;
    const result = run(entrypoint, host, launch).finally(() => {
      host.release();
      dispose(entrypoint);
    });
    return {
      result,
      stop: async () => {
        host.release();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const grace = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, STOP_GRACE_MS);
        });
        await Promise.race([result.then(() => {}), grace]);
        if (timer !== undefined) clearTimeout(timer);
      },
    };
  }

  async syntaxError(source: string): Promise<string | undefined> {
    // V8 compiles the whole module before running it, so a syntax error is reported first;
    // `throw 0;` keeps a source V8 accepts (acorn was stricter) from doing anything.
    const worker = this.#loader.load({
      compatibilityDate: COMPATIBILITY_DATE,
      mainModule: "probe.js",
      modules: { "probe.js": { js: `throw 0;${source}` } },
      globalOutbound: null,
      limits: { cpuMs: CELL_CPU_MS },
    });
    const entrypoint = worker.getEntrypoint() as unknown as { probe(): Promise<void> };
    try {
      await entrypoint.probe();
      return undefined;
    } catch (error) {
      return syntaxErrorFromStartFailure(error instanceof Error ? error.message : String(error));
    } finally {
      dispose(entrypoint);
    }
  }
}

async function run(entrypoint: HarnessEntrypoint, host: CellHost, launch: CellLaunch): Promise<CellRunResult> {
  let reply: HarnessResult;
  try {
    reply = await entrypoint.run(host, { snapshot: launch.snapshot, tools: launch.tools });
  } catch (error) {
    return failure(error);
  }
  const outcome: CellRunResult =
    reply.kind === "stopped"
      ? { kind: "stopped" }
      : { kind: "completed", writes: reply.writes ?? {}, ...(reply.errorText === undefined ? {} : { errorText: reply.errorText }) };
  dispose(reply);
  return outcome;
}

function failure(error: unknown): CellRunResult {
  const message = error instanceof Error ? error.message : String(error);
  // V8 found an error acorn did not: the isolate could not start.
  const syntax = syntaxErrorFromStartFailure(message);
  if (syntax !== undefined) return { kind: "completed", writes: {}, errorText: syntax };
  if (/exceeded CPU|CPU time limit|exceeded resource limits/i.test(message)) return { kind: "limit-exceeded", reason: message };
  return { kind: "crashed", reason: message };
}
