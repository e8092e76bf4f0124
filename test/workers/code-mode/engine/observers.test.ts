// Observing cells (docs/code-mode.md#observers): one observer at a time, yields that
// never repeat output, results held for a missing observer, terminate and shutdown.
// Interleavings are gated by tool calls the test releases, never by sleeps.
import { describe, expect, it } from "vitest";
import {
  CellLimitError,
  CellRuntimeError,
  SessionClosedError,
  WaitCancelledError,
} from "../../../../src/code-mode/engine/engine-errors.ts";
import { withTimeout } from "../../../support/deferred.ts";
import { MemoryValues, newSession, RecordingDelegate, request, text, tool } from "../../../support/code-mode-engine.ts";

const T = 10_000;
const HANG = "await new Promise(() => {})";
const gate = [tool("gate")];

function yielded(cellId: string, items: unknown[] = []) {
  return { kind: "live", response: { kind: "yielded", cellId, items } };
}

describe("waiting on a cell", () => {
  it("rejects a second observer at once without displacing the first", async () => {
    const session = newSession();
    const started = session.execute(request(HANG, { yieldTimeMs: 1 }), new RecordingDelegate());
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [] });
    const preempt = new AbortController();
    const first = session.wait({ cellId: "1", yieldTimeMs: 60_000 }, { preempt: preempt.signal });
    await expect(session.wait({ cellId: "1", yieldTimeMs: 60_000 })).rejects.toThrow(
      new CellRuntimeError("exec cell 1 already has an active observer"),
    );
    preempt.abort();
    expect(await withTimeout(first, T, "the first wait")).toEqual(yielded("1"));
    expect(await session.terminate("1")).toEqual({ kind: "live", response: { kind: "terminated", cellId: "1", items: [] } });
    await session.shutdown();
  });

  it("retires a cancelled wait, after which the next wait observes the cell as usual", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const started = session.execute(request(`text("a"); yield_control(); await tools.gate(); text("b")`, { enabledTools: gate }), delegate);
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [text("a")] });
    const cancel = new AbortController();
    const cancelled = session.wait({ cellId: "1", yieldTimeMs: 60_000 }, { cancel: cancel.signal });
    cancel.abort();
    await expect(cancelled).rejects.toBeInstanceOf(WaitCancelledError);
    const early = new AbortController();
    early.abort();
    await expect(session.wait({ cellId: "1", yieldTimeMs: 60_000 }, { cancel: early.signal })).rejects.toBeInstanceOf(WaitCancelledError);
    expect(await withTimeout(session.wait({ cellId: "1", yieldTimeMs: 1 }), T, "the next wait")).toEqual(yielded("1"));
    const call = await withTimeout(delegate.nextBlockedCall(), T, "the gate call");
    const last = session.wait({ cellId: "1", yieldTimeMs: 60_000 });
    call.reply.resolve(null);
    expect(await withTimeout(last, T, "the result")).toEqual({
      kind: "live",
      response: { kind: "completed", cellId: "1", items: [text("b")] },
    });
    await session.shutdown();
  });

  it("yields at once on a preempt that came before the Execute, and a later wait gets the result", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const preempt = new AbortController();
    preempt.abort();
    const started = session.execute(request(`await tools.gate(); text("done")`, { enabledTools: gate, yieldTimeMs: 60_000 }), delegate, {
      preempt: preempt.signal,
    });
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [] });
    const call = await withTimeout(delegate.nextBlockedCall(), T, "the gate call");
    call.reply.resolve(null);
    const waited = session.wait({ cellId: "1", yieldTimeMs: 60_000 });
    expect(await withTimeout(waited, T, "the result")).toEqual({
      kind: "live",
      response: { kind: "completed", cellId: "1", items: [text("done")] },
    });
    await session.shutdown();
  });

  it("yields on a preempt during a wait with the output so far", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const started = session.execute(request(`yield_control(); text("x"); await tools.gate()`, { enabledTools: gate }), delegate);
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [] });
    await withTimeout(delegate.nextBlockedCall(), T, "the gate call");
    const preempt = new AbortController();
    const waited = session.wait({ cellId: "1", yieldTimeMs: 60_000 }, { preempt: preempt.signal });
    preempt.abort();
    expect(await withTimeout(waited, T, "the yield")).toEqual(yielded("1", [text("x")]));
    await session.shutdown();
  });

  it("sends output written before a never-settling await to the yield", async () => {
    const session = newSession();
    const started = session.execute(request(`text("before"); ${HANG}`, { yieldTimeMs: 200 }), new RecordingDelegate());
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [text("before")] });
    await session.shutdown();
  });

  it("holds a result that had no observer for the next wait, which closes the cell; later calls find no cell", async () => {
    const values = new MemoryValues();
    const session = newSession({}, values);
    const delegate = new RecordingDelegate();
    const started = session.execute(
      request(`yield_control(); await tools.gate(); store("done", 1); text("z")`, { enabledTools: gate }),
      delegate,
    );
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [] });
    const committed = values.nextCommit();
    (await withTimeout(delegate.nextBlockedCall(), T, "the gate call")).reply.resolve(null);
    await withTimeout(committed, T, "the cell's completion");
    // The result waits: the cell does not close while nobody observed it.
    expect(delegate.closed).toEqual([]);
    expect(await session.wait({ cellId: "1", yieldTimeMs: 60_000 })).toEqual({
      kind: "live",
      response: { kind: "completed", cellId: "1", items: [text("z")] },
    });
    expect(delegate.closed).toEqual(["1"]);
    const missing = { kind: "missing", response: { kind: "completed", cellId: "1", items: [], errorText: "exec cell 1 not found" } };
    expect(await session.wait({ cellId: "1", yieldTimeMs: 1 })).toEqual(missing);
    expect(await session.terminate("1")).toEqual(missing);
    expect(await session.terminate("9")).toEqual({
      kind: "missing",
      response: { ...missing.response, cellId: "9", errorText: "exec cell 9 not found" },
    });
    await session.shutdown();
  });
});

describe("terminating a cell", () => {
  it("returns a held result and closes the cell, keeping its writes", async () => {
    const values = new MemoryValues();
    const session = newSession({}, values);
    const delegate = new RecordingDelegate();
    const started = session.execute(
      request(`yield_control(); await tools.gate(); store("q", 1); text("z")`, { enabledTools: gate }),
      delegate,
    );
    await withTimeout(started.initialResponse, T, "the yield");
    const committed = values.nextCommit();
    (await withTimeout(delegate.nextBlockedCall(), T, "the gate call")).reply.resolve(null);
    await withTimeout(committed, T, "the commit");
    expect(await session.terminate("1")).toEqual({ kind: "live", response: { kind: "completed", cellId: "1", items: [text("z")] } });
    expect(delegate.closed).toEqual(["1"]);
    expect(values.values).toEqual({ q: 1 });
    await session.shutdown();
  });

  it("stops a cell blocked in a tool call: the call is cancelled, writes are discarded, the observer and the terminator get the output since the last observation", async () => {
    const values = new MemoryValues();
    const session = newSession({}, values);
    const delegate = new RecordingDelegate();
    const source = `text("a"); yield_control(); text("b"); store("w", 1); text(String(load("w"))); await tools.gate(); text("never")`;
    const started = session.execute(request(source, { enabledTools: gate }), delegate);
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [text("a")] });
    const call = await withTimeout(delegate.nextBlockedCall(), T, "the gate call");
    const observer = session.wait({ cellId: "1", yieldTimeMs: 60_000 });
    const terminated = { kind: "live", response: { kind: "terminated", cellId: "1", items: [text("b"), text("1")] } };
    const first = session.terminate("1");
    await expect(session.terminate("1")).rejects.toThrow(new CellRuntimeError("exec cell 1 is already terminating"));
    expect(await withTimeout(first, T, "the termination")).toEqual(terminated);
    expect(await withTimeout(observer, T, "the observer")).toEqual(terminated);
    expect(call.signal.aborted).toBe(true);
    expect(values.commits).toEqual([]);
    expect(delegate.closed).toEqual(["1"]);
    const next = session.execute(request(`text(String(load("w")))`), delegate);
    expect(next.cellId).toBe("2");
    expect(await withTimeout(next.initialResponse, T, "cell 2")).toEqual({ kind: "completed", cellId: "2", items: [text("undefined")] });
    await session.shutdown();
  });

  it("terminates an abandoned cell before it started, and one whose yield was delivered; the next cell works", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const first = session.execute(request(HANG, { yieldTimeMs: 60_000 }), delegate);
    first.abandon();
    expect(await withTimeout(first.initialResponse, T, "the termination")).toEqual({ kind: "terminated", cellId: "1", items: [] });
    await withTimeout(delegate.closedCell("1"), T, "cell 1 closed");
    const second = session.execute(request(HANG, { yieldTimeMs: 1 }), delegate);
    await withTimeout(second.started, T, "cell 2 started");
    expect(await withTimeout(second.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "2", items: [] });
    second.abandon();
    await withTimeout(delegate.closedCell("2"), T, "cell 2 closed");
    const third = session.execute(request(`text("still alive")`), delegate);
    expect(await withTimeout(third.initialResponse, T, "cell 3")).toEqual({ kind: "completed", cellId: "3", items: [text("still alive")] });
    await session.shutdown();
  });
});

describe("tool calls", () => {
  it("number calls per cell, omit a missing argument, carry the tool's kind, and cancel calls left pending at completion", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate({ free: (call) => call.input });
    const enabledTools = [tool("echo"), tool("gate"), tool("free", "freeform")];
    const source = `await tools.echo(); await tools.free("x"); tools.gate({ left: "pending" }); text("done")`;
    expect(await withTimeout(session.execute(request(source, { enabledTools }), delegate).initialResponse, T, "the result")).toEqual({
      kind: "completed",
      cellId: "1",
      items: [text("done")],
    });
    expect(delegate.calls).toEqual([
      { cellId: "1", runtimeToolCallId: "tool-1", toolName: { name: "echo" }, toolKind: "function" },
      { cellId: "1", runtimeToolCallId: "tool-2", toolName: { name: "free" }, toolKind: "freeform", input: "x" },
      { cellId: "1", runtimeToolCallId: "tool-3", toolName: { name: "gate" }, toolKind: "function", input: { left: "pending" } },
    ]);
    expect((await withTimeout(delegate.nextBlockedCall(), T, "the pending call")).signal.aborted).toBe(true);
    await session.shutdown();
  });

  it("reject with a string when the delegate fails, and the cell recovers", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate({
      fail: () => Promise.reject(new Error("boom failure")),
      crash: () => {
        throw "thrown text";
      },
    });
    const enabledTools = [tool("fail"), tool("crash")];
    const source = `for (const t of [tools.fail, tools.crash]) { try { await t({}) } catch (e) { text(typeof e + ":" + e) } } text("tool recovered")`;
    expect(await withTimeout(session.execute(request(source, { enabledTools }), delegate).initialResponse, T, "the result")).toEqual({
      kind: "completed",
      cellId: "1",
      items: [text("string:boom failure"), text("string:thrown text"), text("tool recovered")],
    });
    expect(
      await withTimeout(session.execute(request(`await tools.fail({})`, { enabledTools }), delegate).initialResponse, T, "the result"),
    ).toEqual({
      kind: "completed",
      cellId: "2",
      items: [],
      errorText: "boom failure",
    });
    await session.shutdown();
  });

  it("refuse arguments JSON cannot hold without calling the delegate", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const source = `for (const a of [1n, () => 1]) { try { await tools.echo(a) } catch (e) { text(typeof e + ":" + e) } }`;
    expect(
      await withTimeout(session.execute(request(source, { enabledTools: [tool("echo")] }), delegate).initialResponse, T, "the result"),
    ).toEqual({
      kind: "completed",
      cellId: "1",
      items: [
        text("string:TypeError: Do not know how to serialize a BigInt\n    at exec_main.mjs:1:52"),
        text("string:failed to serialize JavaScript value: expected value at line 1 column 1"),
      ],
    });
    expect(delegate.calls).toEqual([]);
    await session.shutdown();
  });
});

describe("stored values", () => {
  it("are seen by their own cell at once and by others only once it completed", async () => {
    const values = new MemoryValues();
    const session = newSession({}, values);
    const delegate = new RecordingDelegate();
    const writer = session.execute(
      request(`store("k", "v"); text(String(load("k"))); await tools.gate()`, { enabledTools: gate }),
      delegate,
    );
    const call = await withTimeout(delegate.nextBlockedCall(), T, "the gate call");
    const reader = session.execute(request(`text(String(load("k")))`), delegate);
    expect(await withTimeout(reader.initialResponse, T, "the reader")).toEqual({
      kind: "completed",
      cellId: "2",
      items: [text("undefined")],
    });
    call.reply.resolve(null);
    expect(await withTimeout(writer.initialResponse, T, "the writer")).toEqual({ kind: "completed", cellId: "1", items: [text("v")] });
    const later = session.execute(request(`text(String(load("k")))`), delegate);
    expect(await withTimeout(later.initialResponse, T, "the later reader")).toEqual({ kind: "completed", cellId: "3", items: [text("v")] });
    await session.shutdown();
  });

  it("written by a cell that failed are kept", async () => {
    const values = new MemoryValues();
    const session = newSession({}, values);
    await withTimeout(
      session.execute(request(`store("onerr", 1); throw new Error("x")`), new RecordingDelegate()).initialResponse,
      T,
      "the result",
    );
    expect(values.values).toEqual({ onerr: 1 });
    await session.shutdown();
  });
});

describe("session limits", () => {
  it("bound the initial yield and explicit waits by max_yield_time_ms, per session", async () => {
    const limited = newSession({ maxYieldTimeMs: 1, maxHeapSizeBytes: 16 * 1024 * 1024 });
    const other = newSession({ maxYieldTimeMs: 1_000 });
    const delegate = new RecordingDelegate();
    expect(await withTimeout(limited.execute(request(HANG, { yieldTimeMs: 60_000 }), delegate).initialResponse, T, "the yield")).toEqual({
      kind: "yielded",
      cellId: "1",
      items: [],
    });
    expect(await withTimeout(limited.wait({ cellId: "1", yieldTimeMs: 60_000 }), T, "the wait")).toEqual(yielded("1"));
    const isolated = other.execute(request(`await new Promise(resolve => setTimeout(resolve, 25)); text("isolated")`), delegate);
    expect(await withTimeout(isolated.initialResponse, T, "the other session")).toEqual({
      kind: "completed",
      cellId: "1",
      items: [text("isolated")],
    });
    await limited.terminate("1");
    expect(await withTimeout(limited.execute(request(`text("recovered")`), delegate).initialResponse, T, "cell 2")).toEqual({
      kind: "completed",
      cellId: "2",
      items: [text("recovered")],
    });
    await limited.shutdown();
    await other.shutdown();
  });

  it("allow 10 running cells; an 11th is refused without using an id until one ends", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    for (let i = 1; i <= 10; i++) {
      const started = session.execute(request(HANG, { yieldTimeMs: 1 }), delegate);
      await withTimeout(started.initialResponse, T, `cell ${i}`);
    }
    expect(session.runningCells).toBe(10);
    expect(() => session.execute(request(`text("x")`), delegate)).toThrow(CellLimitError);
    await session.terminate("3");
    const next = session.execute(request(`text("x")`), delegate);
    expect(next.cellId).toBe("11");
    expect(await withTimeout(next.initialResponse, T, "cell 11")).toEqual({ kind: "completed", cellId: "11", items: [text("x")] });
    await session.shutdown();
    expect(session.runningCells).toBe(0);
  });

  it("count the isolate that finds a syntax error's message against the 10 until it returns", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    for (let i = 1; i <= 9; i++) {
      const started = session.execute(request(HANG, { yieldTimeMs: 1 }), delegate);
      await withTimeout(started.initialResponse, T, `cell ${i}`);
    }
    const probed = session.execute(request("let x = ;"), delegate);
    expect(session.runningCells).toBe(10);
    expect(() => session.execute(request(`text("x")`), delegate)).toThrow(CellLimitError);
    expect(await withTimeout(probed.initialResponse, T, "the syntax error")).toMatchObject({ kind: "completed", cellId: "10" });
    expect(session.runningCells).toBe(9);
    await session.shutdown();
  });

  it("prefix cell ids with the generation after a restart", async () => {
    const session = newSession({}, new MemoryValues(), "g2:");
    const started = session.execute(request(`text("x")`), new RecordingDelegate());
    expect(started.cellId).toBe("g2:1");
    expect(await withTimeout(started.initialResponse, T, "the result")).toEqual({ kind: "completed", cellId: "g2:1", items: [text("x")] });
    await session.shutdown();
  });
});

describe("shutting a session down", () => {
  it("fails pending observations, retires running cells without their writes, and refuses later calls", async () => {
    const values = new MemoryValues();
    const session = newSession({}, values);
    const delegate = new RecordingDelegate();
    const pending = session.execute(request(`store("s", 1); await tools.gate()`, { enabledTools: gate, yieldTimeMs: 60_000 }), delegate);
    const call = await withTimeout(delegate.nextBlockedCall(), T, "the gate call");
    const yielding = session.execute(request(HANG, { yieldTimeMs: 1 }), delegate);
    await withTimeout(yielding.initialResponse, T, "the yield");
    const waiting = expect(session.wait({ cellId: "2", yieldTimeMs: 60_000 })).rejects.toBeInstanceOf(SessionClosedError);
    await session.shutdown();
    await expect(pending.initialResponse).rejects.toBeInstanceOf(SessionClosedError);
    await waiting;
    expect(call.signal.aborted).toBe(true);
    expect(values.commits).toEqual([]);
    expect([...delegate.closed].sort()).toEqual(["1", "2"]);
    const refused = new CellRuntimeError("code mode session is shutting down");
    expect(() => session.execute(request(`text("too late")`), delegate)).toThrow(refused);
    await expect(session.wait({ cellId: "missing", yieldTimeMs: 1 })).rejects.toThrow(refused);
    await expect(session.terminate("missing")).rejects.toThrow(refused);
  });
});
