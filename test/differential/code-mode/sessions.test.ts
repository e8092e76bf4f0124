// Sessions and stored values (docs/code-mode.md#differential-suite; seed
// tcp_session_persists_values_and_reports_cell_closure, code-mode §6.1–3).
import { expect, it } from "vitest";
import { functionTool } from "../support/execute.ts";
import { completed, failed, missing, observed, text } from "../support/outcomes.ts";
import { describeTargets } from "../support/scenario.ts";
import { callInput, gatedTools, tools } from "../support/tools.ts";

describeTargets("sessions and stored values", ({ open, execute, subscribe, wait, client }) => {
  it("persists a stored value into the next cell and reports each cell closed once delivered", async () => {
    const session = await open();
    const first = execute(session, `store("key", "persisted");`);
    expect(observed(await first.outcome())).toEqual(completed("1"));
    const second = execute(session, `text(String(load("key")));`);
    expect(observed(await second.outcome())).toEqual(completed("2", [text("persisted")]));
    const closed = [await session.cellClosed("1"), await session.cellClosed("2")];
    expect(closed.map((c) => [c.cellId, c.executionId])).toEqual([
      ["1", first.executionId],
      ["2", second.executionId],
    ]);
  });

  it("routes a cell's tool call and notification to the client with the cell's ids", async () => {
    const session = await open();
    const subscription = await subscribe(session, { handler: tools.fixed({ value: "output" }) });
    expect(observed(await execute(session, `store("key", "persisted");`).outcome())).toEqual(completed("1"));
    const source = `const result = await tools.echo({ value: String(load("key")) }); notify("notice"); text(result.value);`;
    const second = execute(session, source, { toolCallId: "call-2", enabledTools: [functionTool("echo")] });
    expect(observed(await second.outcome())).toEqual(completed("2", [text("output")]));
    const call = await subscription.callNamed("echo");
    expect({
      session: call.sessionId,
      execution: call.executionId,
      cell: call.cellId,
      id: call.runtimeToolCallId,
      name: call.toolName?.name,
      namespace: call.toolName?.namespace,
      kind: call.toolKind,
      input: callInput(call),
      sequence: call.sequence,
    }).toEqual({
      session: session.id,
      execution: second.executionId,
      cell: "2",
      id: "tool-1",
      name: "echo",
      namespace: undefined,
      kind: functionTool("echo").kind,
      input: { value: "persisted" },
      sequence: 1n,
    });
    const notification = await session.notification();
    expect([notification.callId, notification.cellId, notification.executionId, notification.text]).toEqual([
      "call-2",
      "2",
      second.executionId,
      "notice",
    ]);
    expect(subscription.calls).toHaveLength(1);
  });

  it("keeps each session's stored values to itself", async () => {
    const a = await open();
    const b = await open();
    expect(observed(await execute(a, `store("shared", "a's");`).outcome())).toEqual(completed("1"));
    const source = `text(String(load("shared"))); text(String(load("missing")));`;
    expect(observed(await execute(b, source).outcome())).toEqual(completed("1", [text("undefined"), text("undefined")]));
    expect(observed(await execute(a, `text(load("shared"));`).outcome())).toEqual(completed("2", [text("a's")]));
  });

  it("refuses to store a value that is not plain serialisable data", async () => {
    const session = await open();
    const caught = `try { store("k", undefined); } catch (e) { text(typeof e); text(e); }`;
    expect(observed(await execute(session, caught).outcome())).toEqual(
      completed("1", [text("string"), text('Unable to store "k". Only plain serializable objects can be stored.')]),
    );
    expect(observed(await execute(session, `store("k", () => 1);`).outcome())).toEqual(
      // Uncaught, a function's refusal is the serialiser's own text (the reference's).
      failed("2", "failed to serialize JavaScript value: expected value at line 1 column 1"),
    );
  });

  it("returns a deep copy from load, so changing it does not change the stored value", async () => {
    const session = await open();
    const source = `store("o", { list: [1] }); const o = load("o"); o.list.push(2); text(load("o"));`;
    expect(observed(await execute(session, source).outcome())).toEqual(completed("1", [text('{"list":[1]}')]));
  });

  it("shows a cell its own writes at once and other cells only once it completes", async () => {
    const session = await open();
    const gates = gatedTools();
    const subscription = await subscribe(session, { handler: gates.handler(["hold"]) });
    const writer = execute(session, `store("v", "one"); text(String(load("v"))); await tools.hold({}); store("v", "two");`, {
      enabledTools: [functionTool("hold")],
      yieldTimeMs: 60_000,
    });
    await subscription.callNamed("hold");
    // The writer has stored "one" and is held in its tool call: a second cell still sees the old snapshot.
    const reader = execute(session, `text(String(load("v")));`);
    expect(observed(await reader.outcome())).toEqual(completed("2", [text("undefined")]));
    gates.release("hold");
    expect(observed(await writer.outcome())).toEqual(completed("1", [text("one")]));
    expect(observed(await execute(session, `text(load("v"));`).outcome())).toEqual(completed("3", [text("two")]));
  });

  it("discards the writes of a terminated cell", async () => {
    const session = await open();
    const cell = execute(session, `store("t", "written"); await new Promise(() => {});`, { yieldTimeMs: 1 });
    expect(observed(await cell.outcome()).kind).toBe("yielded");
    expect((await client.terminate({ sessionId: session.id, cellId: "1" })).state.case).toBe("liveCell");
    expect(observed(await execute(session, `text(String(load("t")));`).outcome())).toEqual(completed("2", [text("undefined")]));
  });

  it("keeps the writes made before exit() and runs nothing after it", async () => {
    const session = await open();
    const source = `store("x", 1); text("before"); exit(); store("y", 2); text("after");`;
    expect(observed(await execute(session, source).outcome())).toEqual(completed("1", [text("before")]));
    const check = `text(String(load("x"))); text(String(load("y")));`;
    expect(observed(await execute(session, check).outcome())).toEqual(completed("2", [text("1"), text("undefined")]));
    expect(await wait(session, "1", 1)).toEqual(missing("1"));
  });
});
