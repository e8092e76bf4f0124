// A CPU profile of the worker under `wrangler dev`, taken through workerd's
// inspector (the Chrome DevTools protocol on --inspector-port): where the
// worker's own JavaScript spends its time while a bench workload runs
// (docs/benchmarks.md#profiles). In wrangler dev the worker and its Durable
// Objects share one isolate, so one profile covers both.
import { writeFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const CALL_TIMEOUT_MS = 15_000;

/** Runs `work` while the worker's isolate is being profiled; the profile is written to `file` when given (DevTools opens it). */
export async function profileWhile<T>(
  inspectorPort: number,
  file: string | undefined,
  work: () => Promise<T>,
): Promise<{ result: T; profile: CpuProfile }> {
  const session = await InspectorSession.open(inspectorPort);
  try {
    await session.call("Profiler.enable");
    await session.call("Profiler.setSamplingInterval", { interval: 100 }); // µs
    await session.call("Profiler.start");
    const result = await work();
    const { profile } = (await session.call("Profiler.stop")) as { profile: CpuProfile };
    if (file !== undefined) writeFileSync(file, JSON.stringify(profile));
    return { result, profile };
  } finally {
    session.close();
  }
}

/** The worker isolate's V8 heap in use after a full collection: what the worker's own objects hold. */
export async function heapUsedAfterGc(inspectorPort: number): Promise<number> {
  const session = await InspectorSession.open(inspectorPort);
  try {
    await session.call("HeapProfiler.collectGarbage");
    const { usedSize } = (await session.call("Runtime.getHeapUsage")) as { usedSize: number };
    return usedSize;
  } finally {
    session.close();
  }
}

export interface ProfileLine {
  what: string;
  selfMs: number;
  share: number;
}

/**
 * Self time per function (name and file:line), largest first. The V8 pseudo-nodes
 * "(idle)" and "(program)" say how much of the wall time the isolate was not
 * running JavaScript (waiting for I/O, or inside workerd's own C++).
 */
export function topFunctions(profile: CpuProfile, limit = 20): ProfileLine[] {
  return selfTimes(profile, describe, limit);
}

/** Self time per source file (the project's files by path, libraries by package). */
export function byFile(profile: CpuProfile, limit = 15): ProfileLine[] {
  return selfTimes(profile, fileOf, limit);
}

function selfTimes(profile: CpuProfile, keyOf: (frame: CallFrame) => string, limit: number): ProfileLine[] {
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const msByNode = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  for (const [i, id] of (profile.samples ?? []).entries()) msByNode.set(id, (msByNode.get(id) ?? 0) + (deltas[i] ?? 0) / 1000);
  const byKey = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = msByNode.get(node.id) ?? 0;
    if (ms === 0) continue;
    const key = keyOf(node.callFrame);
    byKey.set(key, (byKey.get(key) ?? 0) + ms);
  }
  return [...byKey.entries()]
    .map(([what, selfMs]) => ({ what, selfMs, share: selfMs / totalMs }))
    .sort((a, b) => b.selfMs - a.selfMs)
    .slice(0, limit);
}

export function profileTable(lines: ProfileLine[], heading: string): string {
  const rows = lines.map((l) => `| ${l.what.replaceAll("|", "\\|")} | ${l.selfMs.toFixed(1)} ms | ${(l.share * 100).toFixed(1)} % |`);
  return [`| ${heading} | self time | of wall time |`, "|---|---:|---:|", ...rows].join("\n");
}

function describe(frame: CallFrame): string {
  const name = frame.functionName || "(anonymous)";
  if (!frame.url) return name;
  return `${name} (${fileOf(frame)}:${frame.lineNumber + 1})`;
}

function fileOf(frame: CallFrame): string {
  if (!frame.url) return frame.functionName || "(native)";
  const nodeModules = frame.url.lastIndexOf("node_modules/");
  if (nodeModules >= 0) {
    const rest = frame.url.slice(nodeModules + "node_modules/".length).split("/");
    return `npm:${rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  const src = frame.url.indexOf("/src/");
  return src >= 0 ? frame.url.slice(src + 1) : frame.url.replace(/^.*\//, "");
}

/** One DevTools-protocol connection to the worker's isolate. */
class InspectorSession {
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(readonly socket: WebSocket) {
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id === undefined) return;
      const waiter = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(`inspector: ${message.error.message}`));
      else waiter?.resolve(message.result);
    });
    socket.addEventListener("close", () => {
      for (const waiter of this.#pending.values()) waiter.reject(new Error("inspector: connection closed"));
      this.#pending.clear();
    });
  }

  static async open(port: number): Promise<InspectorSession> {
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) })).json()) as {
      webSocketDebuggerUrl?: string;
    }[];
    const url = targets.find((t) => t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
    if (!url) throw new Error("inspector: the worker offers no debugging target");
    // The inspector proxy refuses a connection without an Origin it knows (DNS rebinding guard).
    const init = { headers: { origin: "http://127.0.0.1" } } as unknown as string[]; // undici's WebSocketInit; not in the DOM types
    const socket = new WebSocket(url, init);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error("inspector: could not connect")), { once: true });
    });
    return new InspectorSession(socket);
  }

  call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.#nextId++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`inspector: ${method} had no answer within ${CALL_TIMEOUT_MS / 1000} s`));
      }, CALL_TIMEOUT_MS);
      this.#pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
    });
  }

  close(): void {
    this.socket.close();
  }
}
