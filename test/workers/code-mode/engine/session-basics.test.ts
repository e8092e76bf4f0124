// The cell model's core on real Worker Loader isolates: results, stored values, tool
// calls through the delegate, and notifications.
import { describe, expect, it } from "vitest";
import { withTimeout } from "../../../support/deferred.ts";
import { MemoryValues, newSession, RecordingDelegate, request, text, tool } from "../../../support/code-mode-engine.ts";

const T = 10_000;

describe("a code-mode session", () => {
  it("runs a cell to completion with its text output and allocates ids from 1", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const started = session.execute(request(`text("hello")`), delegate);
    expect(started.cellId).toBe("1");
    expect(await withTimeout(started.initialResponse, T, "the result")).toEqual({ kind: "completed", cellId: "1", items: [text("hello")] });
    expect(delegate.closed).toEqual(["1"]);
    const second = session.execute(request(`text(1 + 1)`), delegate);
    expect(second.cellId).toBe("2");
    expect(await withTimeout(second.initialResponse, T, "the result")).toEqual({ kind: "completed", cellId: "2", items: [text("2")] });
    await session.shutdown();
  });

  it("keeps stored values across cells and routes tool calls and notifications through the delegate", async () => {
    const values = new MemoryValues();
    const session = newSession({}, values);
    const delegate = new RecordingDelegate();
    expect(await session.execute(request(`store("key", "persisted")`), delegate).initialResponse).toEqual({
      kind: "completed",
      cellId: "1",
      items: [],
    });
    const source = `const result = await tools.echo({ value: String(load("key")) }); notify("notice"); text(result.value)`;
    const second = session.execute(request(source, { toolCallId: "call-2", enabledTools: [tool("echo")] }), delegate);
    expect(await withTimeout(second.initialResponse, T, "the result")).toEqual({
      kind: "completed",
      cellId: "2",
      items: [text("persisted")],
    });
    expect(delegate.calls).toEqual([
      { cellId: "2", runtimeToolCallId: "tool-1", toolName: { name: "echo" }, toolKind: "function", input: { value: "persisted" } },
    ]);
    expect(delegate.notifications).toEqual([{ callId: "call-2", cellId: "2", text: "notice" }]);
    await session.shutdown();
    expect(delegate.closed).toEqual(["1", "2"]);
  });

  it("yields a cell awaiting a promise that never settles, then terminates it", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const started = session.execute(request(`await new Promise(() => {})`, { yieldTimeMs: 1 }), delegate);
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [] });
    expect(await session.wait({ cellId: "1", yieldTimeMs: 1 })).toEqual({
      kind: "live",
      response: { kind: "yielded", cellId: "1", items: [] },
    });
    expect(await session.terminate("1")).toEqual({ kind: "live", response: { kind: "terminated", cellId: "1", items: [] } });
    expect(delegate.closed).toEqual(["1"]);
    await session.shutdown();
  });

  it("never repeats output: yield_control() yields what came before it, the result holds the rest", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const source = `text("a"); yield_control(); await tools.gate(); text("b")`;
    const started = session.execute(request(source, { enabledTools: [tool("gate")] }), delegate);
    expect(await withTimeout(started.initialResponse, T, "the yield")).toEqual({ kind: "yielded", cellId: "1", items: [text("a")] });
    const gate = await withTimeout(delegate.nextBlockedCall(), T, "the gate call");
    const waited = session.wait({ cellId: "1", yieldTimeMs: 5_000 });
    gate.reply.resolve(null);
    expect(await withTimeout(waited, T, "the result")).toEqual({
      kind: "live",
      response: { kind: "completed", cellId: "1", items: [text("b")] },
    });
    await session.shutdown();
  });
});
