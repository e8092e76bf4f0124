// The cell host (cell-host/, docs/code-mode.md#cell-host) with real workerd processes,
// driven by the engine's own session and the real RemoteCellRunner over Node's WebSocket:
// runaway cells end as terminated within their limits while other cells keep running.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeCellWorker } from "../../../cell-host/bundle.ts";
import { startCellHost, type CellHost } from "../../../cell-host/cell-host.ts";
import { CellProcess } from "../../../cell-host/cell-process.ts";
import { analyseSource } from "../../../src/code-mode/engine/cell-source.ts";
import { sendMessage } from "../../../src/code-mode/engine/cell-wire.ts";
import { DEFAULTS } from "../../../cell-host/options.ts";
import type { CellDelegate, RuntimeResponse, StoredValues } from "../../../src/code-mode/engine/engine-types.ts";
import { RemoteCellRunner, type WireConnect, type WireSocket } from "../../../src/code-mode/engine/remote-runner.ts";
import { CodeModeSession } from "../../../src/code-mode/engine/session.ts";
import { withTimeout } from "../../support/deferred.ts";

/** A runaway cell's CPU limit here; production's is 30 s. */
const CPU_MS = 1_500;
/** How far past its limit a runaway cell may end: the 50 ms watch, the kill, the message back. */
const LIMIT_SLACK_MS = 3_000;
/** A cell that only writes text ends within this while runaway cells run beside it. */
const QUICK_CELL_MS = 5_000;

const nodeConnect: WireConnect = (url) =>
  new Promise<WireSocket>((resolve, reject) => {
    const socket = new WebSocket(url.replace(/^http/, "ws"));
    socket.addEventListener("open", () => resolve(socket as unknown as WireSocket), { once: true });
    socket.addEventListener("error", () => reject(new Error(`no WebSocket to ${url}`)), { once: true });
  });

class Values implements StoredValues {
  values: Record<string, unknown> = {};
  snapshot() {
    return structuredClone(this.values);
  }
  commit(writes: Record<string, unknown>) {
    Object.assign(this.values, writes);
  }
}

const echoDelegate: CellDelegate = {
  invokeTool: async (call) => call.input ?? null,
  notify: async () => {},
  cellClosed: () => {},
};

function session(host: CellHost, values = new Values()): CodeModeSession {
  return new CodeModeSession({ runner: new RemoteCellRunner(host.url, CPU_MS, nodeConnect), values, limits: {} });
}

function run(target: CodeModeSession, source: string, yieldTimeMs = 60_000): Promise<RuntimeResponse> {
  return target.execute({ toolCallId: "call", source, enabledTools: [echoTool], yieldTimeMs }, echoDelegate).initialResponse;
}

const echoTool = { name: "echo", toolName: { name: "echo" }, description: "echo", kind: "function" as const };

describe("local workerd, without a cell host", () => {
  it("does not enforce a Worker Loader isolate's cpuMs: a spinning cell with cpuMs 100 is still running after 1 s of CPU", async () => {
    const dir = mkdtempSync(join(tmpdir(), "byok-cell-probe-"));
    const cells = new CellProcess(await writeCellWorker(dir));
    try {
      const socket = new WebSocket(`ws://127.0.0.1:${await cells.port}/`);
      const messages: string[] = [];
      socket.addEventListener("message", (event) => messages.push(String(event.data)));
      await new Promise((resolve) => socket.addEventListener("open", resolve, { once: true }));
      const analysis = analyseSource("while (true) {}");
      if (analysis.kind !== "module") throw new Error("the source did not analyse");
      const launch = { cellId: "1", moduleText: analysis.text, tools: [], snapshot: {} };
      sendMessage(socket, { t: "start", launch, cpuMs: 100 });
      const start = await cells.usage();
      let used = 0;
      const deadline = Date.now() + 15_000;
      while (used < 1_000 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100)); // sampling the process's CPU time, bounded by the deadline
        used = (await cells.usage()).cpuMs - start.cpuMs;
      }
      expect(used).toBeGreaterThanOrEqual(1_000);
      // Ten times its limit, and no result: nothing stopped it.
      expect(messages.some((frame) => frame.includes('"t":"result"'))).toBe(false);
    } finally {
      cells.kill();
      await cells.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the cell host", () => {
  let host: CellHost;
  beforeAll(async () => {
    host = await startCellHost({ ...DEFAULTS, port: 0 });
  });
  afterAll(async () => {
    await host?.close();
  });

  it("runs a cell in its own process: text, a tool call's answer and stored values come back", async () => {
    const values = new Values();
    const response = await withTimeout(
      run(session(host, values), 'const answer = await tools.echo({ a: 1 }); text(JSON.stringify(answer)); store("k", 2);'),
      QUICK_CELL_MS,
      "the cell",
    );
    expect(response).toEqual({ kind: "completed", cellId: "1", items: [{ type: "input_text", text: '{"a":1}' }] });
    expect(values.values).toEqual({ k: 2 });
  });

  it("ends a busy loop and a heap hog as terminated at their limits while another session's cell completes", async () => {
    const started = Date.now();
    const busy = run(session(host), 'text("spinning"); let n = 0; while (true) { n++; }');
    let hogEndedAt = 0;
    const hog = run(session(host), "const kept = []; for (let i = 0; ; i++) kept.push(new Array(1 << 20).fill(i));").finally(() => {
      hogEndedAt = Date.now();
    });
    const quick = await withTimeout(run(session(host), 'text("still served")'), QUICK_CELL_MS, "a cell beside two runaway ones");
    expect(quick).toMatchObject({ kind: "completed", items: [{ type: "input_text", text: "still served" }] });
    // Its text is lost with it: output leaves an isolate in a microtask, which a spinning cell never reaches.
    expect(await withTimeout(busy, CPU_MS + LIMIT_SLACK_MS, "the busy loop's end")).toEqual({ kind: "terminated", cellId: "1", items: [] });
    expect(await withTimeout(hog, LIMIT_SLACK_MS + CPU_MS, "the heap hog's end")).toMatchObject({ kind: "terminated" });
    // The memory limit ended it (about 8 MiB per array), before its CPU time could.
    expect(hogEndedAt - started).toBeLessThan(CPU_MS);
    expect(Date.now() - started).toBeGreaterThanOrEqual(CPU_MS);
    expect(host.running()).toBe(0);
  });

  it("stops a busy loop on Terminate, which a cell in the server's own process cannot do", async () => {
    const target = session(host);
    const yielded = await withTimeout(run(target, "while (true) {}", 200), QUICK_CELL_MS, "the yield");
    expect(yielded).toMatchObject({ kind: "yielded", cellId: "1" });
    const outcome = await withTimeout(target.terminate("1"), LIMIT_SLACK_MS, "the Terminate");
    expect(outcome).toEqual({ kind: "live", response: { kind: "terminated", cellId: "1", items: [] } });
  });

  it("refuses a cell past its capacity with a cell error, not a hang", async () => {
    const small = await startCellHost({ ...DEFAULTS, port: 0, warm: 1, maxCells: 1 });
    try {
      const target = session(small);
      const first = run(target, "while (true) {}", 200);
      await withTimeout(first, QUICK_CELL_MS, "the first cell's yield");
      const second = await withTimeout(run(target, 'text("x")'), QUICK_CELL_MS, "the refused cell");
      expect(second).toMatchObject({ kind: "completed", errorText: expect.stringContaining("code mode is busy: 1 cells are running") });
      await target.terminate("1");
    } finally {
      await small.close();
    }
  });
});
