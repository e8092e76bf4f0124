// Yield, Wait, Terminate and the one-observer rule (docs/code-mode.md#differential-suite;
// seed concurrent_wait_rejects_without_displacing_the_active_observer and
// dropping_a_wait_retires_its_observer_before_the_next_wait, code-mode §6.4–10).
import { randomUUID } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { expect, it } from "vitest";
import { AT_ONCE_MS, bounded, pollUntil } from "../support/bounds.ts";
import { functionTool } from "../support/execute.ts";
import { completed, live, missing, observed, rpcError, terminated, text, waited, yielded } from "../support/outcomes.ts";
import { describeTargets } from "../support/scenario.ts";

const FOREVER = "await new Promise(() => {});";

describeTargets("yield, wait and terminate", ({ target, open, execute, subscribe, wait, waitRaw, terminate, concurrentWaits, client }) => {
  const yieldWait = (sessionId: string, waitId: string) =>
    bounded(client.yieldObservation({ sessionId, observation: { case: "waitId", value: waitId } }), "YieldObservation");

  it("yields a cell that awaits forever, lets a wait observe it yielding, and terminates it", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    expect(await wait(session, "1", 1)).toEqual(live(yielded("1")));
    expect(await terminate(session, "1")).toEqual(live(terminated("1")));
    await session.cellClosed("1");
    expect(await wait(session, "1", 1)).toEqual(missing("1"));
  });

  it("never repeats output: a yield returns what came before it and the result what came after", async () => {
    const session = await open();
    const source = `text("a"); yield_control(); await new Promise((r) => setTimeout(r, 20)); text("b");`;
    expect(observed(await execute(session, source, { yieldTimeMs: 60_000 }).outcome())).toEqual(yielded("1", [text("a")]));
    expect(await wait(session, "1", 60_000)).toEqual(live(completed("1", [text("b")])));
  });

  it("holds the result of a cell that completes with no observer for the next wait, then closes the cell", async () => {
    const session = await open();
    const cell = execute(session, `yield_control(); text("done");`, { yieldTimeMs: 60_000 });
    expect(observed(await cell.outcome())).toEqual(yielded("1"));
    expect(await wait(session, "1", 60_000)).toEqual(live(completed("1", [text("done")])));
    await session.cellClosed("1");
    expect(await wait(session, "1", 1)).toEqual(missing("1"));
  });

  it("answers a wait or terminate on a cell id it never issued with a missing cell", async () => {
    const session = await open();
    expect(await wait(session, "99", 1)).toEqual(missing("99"));
    expect(await terminate(session, "99")).toEqual(missing("99"));
    expect(await wait(session, "not-a-number", 1)).toEqual(missing("not-a-number"));
  });

  it("rejects a concurrent wait at once without displacing the active observer", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    // Sent together, either may arrive first: the second is refused at once and the first keeps observing.
    // The short one outlasts "at once" (AT_ONCE_MS), so it cannot end before the other is refused: with
    // 100 ms, a loaded host admitted the second wait only after the first had ended, and both succeeded.
    const short = AT_ONCE_MS + 1_000;
    const { refused, active } = await concurrentWaits(session, "1", [short, 60_000]);
    expect(refused).toEqual({ code: Code.FailedPrecondition, message: "exec cell 1 already has an active observer" });
    // The short wait ends at its own yield time; the long one is ended early.
    if (active.yieldTimeMs !== short) await yieldWait(session.id, active.waitId);
    expect(waited(await active.response)).toEqual(live(yielded("1")));
    expect(await terminate(session, "1")).toEqual(live(terminated("1")));
  });

  it("retires a cancelled wait's observer, so the next wait observes the cell", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    const waitId = randomUUID();
    const cancelled = rpcError(waitRaw(session, "1", 60_000, { waitId }), "the cancelled wait");
    await bounded(client.cancelWait({ sessionId: session.id, waitId }), "CancelWait");
    expect(await cancelled).toEqual({ code: Code.Canceled, message: "code-mode wait was cancelled" });
    expect(await wait(session, "1", 1)).toEqual(live(yielded("1")));
    expect(await terminate(session, "1")).toEqual(live(terminated("1")));
  });

  it("fails a wait whose CancelWait arrived before it", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    const waitId = randomUUID();
    await bounded(client.cancelWait({ sessionId: session.id, waitId }), "CancelWait");
    expect(await rpcError(waitRaw(session, "1", 60_000, { waitId }))).toEqual({
      code: Code.Canceled,
      message: "code-mode wait was cancelled",
    });
    expect(await wait(session, "1", 1)).toEqual(live(yielded("1")));
  });

  it("retires the observer of a wait whose caller went away", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    // Where a dropped unary Wait goes unnoticed (docs/code-mode.md#platform-differences), its observer
    // is retired when its own yield time ends; elsewhere at once, long before its 60 s.
    const noticed = target.differences.droppedWaitNoticed;
    const yieldTimeMs = noticed ? 60_000 : 3_000;
    const { active } = await concurrentWaits(session, "1", [yieldTimeMs, yieldTimeMs]);
    active.drop();
    // Refused until the host has noticed the dropped call (or its yield time ended); then observed.
    const next = await pollUntil(
      async () => {
        try {
          return await wait(session, "1", 1);
        } catch (error) {
          if ((error as { rawMessage?: string }).rawMessage === "exec cell 1 already has an active observer") return undefined;
          throw error;
        }
      },
      "a wait after the dropped one",
      noticed ? undefined : yieldTimeMs + 10_000,
    );
    expect(next).toEqual(live(yielded("1")));
    expect(await terminate(session, "1")).toEqual(live(terminated("1")));
  });

  it("yields an Execute at once when YieldObservation arrives during it, and a later wait returns the result", async () => {
    const session = await open();
    const gates = await subscribe(session, { handler: () => "hold" });
    const cell = execute(session, `text("x"); await tools.hold({}); text("y");`, {
      yieldTimeMs: 60_000,
      enabledTools: [functionTool("hold")],
    });
    const call = await gates.callNamed("hold");
    await bounded(
      client.yieldObservation({ sessionId: session.id, observation: { case: "executionId", value: cell.executionId } }),
      "YieldObservation",
    );
    expect(observed(await cell.outcome(AT_ONCE_MS))).toEqual(yielded("1", [text("x")]));
    await gates.complete(call, { output: null });
    expect(await wait(session, "1", 60_000)).toEqual(live(completed("1", [text("y")])));
  });

  it("remembers a YieldObservation that arrives before its Execute", async () => {
    const session = await open();
    const executionId = randomUUID();
    await bounded(
      client.yieldObservation({ sessionId: session.id, observation: { case: "executionId", value: executionId } }),
      "YieldObservation",
    );
    const cell = execute(session, `await new Promise((r) => setTimeout(r, 50)); text("late");`, { executionId, yieldTimeMs: 60_000 });
    expect(observed(await cell.outcome(AT_ONCE_MS))).toEqual(yielded("1"));
    expect(await wait(session, "1", 60_000)).toEqual(live(completed("1", [text("late")])));
  });

  it("yields a Wait at once when YieldObservation arrives before or during it", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    const early = randomUUID();
    await bounded(client.yieldObservation({ sessionId: session.id, observation: { case: "waitId", value: early } }), "YieldObservation");
    expect(waited(await bounded(waitRaw(session, "1", 60_000, { waitId: early }), "the pre-yielded wait", AT_ONCE_MS))).toEqual(
      live(yielded("1")),
    );
    const during = randomUUID();
    const observing = waitRaw(session, "1", 60_000, { waitId: during });
    await bounded(client.yieldObservation({ sessionId: session.id, observation: { case: "waitId", value: during } }), "YieldObservation");
    expect(waited(await bounded(observing, "the yielded wait", AT_ONCE_MS))).toEqual(live(yielded("1")));
  });

  it("gives the Execute observing a cell the Terminated outcome too", async () => {
    const session = await open();
    const subscription = await subscribe(session, { handler: () => "hold" });
    const cell = execute(session, `text("a"); await tools.hold({});`, { yieldTimeMs: 60_000, enabledTools: [functionTool("hold")] });
    await subscription.callNamed("hold"); // "a" is out by now
    expect(await terminate(session, "1")).toEqual(live(terminated("1", [text("a")])));
    expect(observed(await cell.outcome())).toEqual(terminated("1", [text("a")]));
  });

  it("gives a Wait observing a cell the Terminated outcome too", async () => {
    const session = await open();
    const source = `text("a"); yield_control(); text("b"); ${FOREVER}`;
    expect(observed(await execute(session, source, { yieldTimeMs: 60_000 }).outcome())).toEqual(yielded("1", [text("a")]));
    const { active } = await concurrentWaits(session, "1", [60_000, 60_000]);
    expect(await terminate(session, "1")).toEqual(live(terminated("1", [text("b")])));
    expect(waited(await active.response)).toEqual(live(terminated("1", [text("b")])));
  });

  it("refuses a second terminate of a cell that is already terminating", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    const results = await Promise.all(
      [0, 1].map(() =>
        client.terminate({ sessionId: session.id, cellId: "1" }).then(
          (response) => waited(response),
          (error: { code: Code; rawMessage: string }) => ({ code: error.code, message: error.rawMessage }),
        ),
      ),
    );
    expect(results).toContainEqual(live(terminated("1")));
    const other = results.find((r) => !("state" in r && r.state === "live"));
    expect([{ code: Code.FailedPrecondition, message: "exec cell 1 is already terminating" }, missing("1")]).toContainEqual(other);
  });

  it("cancels the tool call a terminated cell was blocked in", async () => {
    const session = await open();
    const subscription = await subscribe(session, { handler: () => "hold" });
    // Uncaught: whether a catch block would still run before the isolate stops is a race.
    const source = `await tools.slow({}); text("unreachable");`;
    const cell = execute(session, source, { yieldTimeMs: 60_000, enabledTools: [functionTool("slow")] });
    const call = await subscription.callNamed("slow");
    expect(await terminate(session, "1")).toEqual(live(terminated("1")));
    expect(observed(await cell.outcome())).toEqual(terminated("1"));
    expect((await session.toolCallCancelled(call.invocationId)).invocationId).toBe(call.invocationId);
    await session.cellClosed("1");
    // The late completion of the cancelled call is accepted and changes nothing.
    await subscription.complete(call, { output: null });
  });
});
