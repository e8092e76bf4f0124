// Abandoned executions, closed sessions and dropped streams
// (docs/code-mode.md#differential-suite; seed cancelling_execution_before_admission_keeps_the_session_usable,
// dropping_a_started_cell_off_runtime_terminates_its_buffered_remote_execution,
// dropping_an_initial_response_terminates_its_pending_remote_execution,
// dropping_a_session_off_runtime_retires_its_active_cells, shutdown_immediately_rejects_new_operations,
// dropping_a_grpc_lease_retires_its_server_session; code-mode §6.13–16 and §7). The dropped streams
// run twice: from a client that asks for heartbeats, and from a plain one, as Codex's own
// (docs/code-mode.md#leases).
import { randomUUID } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { expect, it } from "vitest";
import { deferred } from "../../support/deferred.ts";
import { bounded, pollUntil } from "../support/bounds.ts";
import { execute as executeOn, functionTool } from "../support/execute.ts";
import { asRpcError, completed, live, missing, observed, type RpcError, rpcError, terminated, text, yielded } from "../support/outcomes.ts";
import { describeTargets, type Scenario } from "../support/scenario.ts";
import type { Session } from "../support/session.ts";

const FOREVER = "await new Promise(() => {});";
const echo = functionTool("echo");

const unknownSession = (session: Session) => ({ code: Code.NotFound, message: `unknown code-mode session ${session.id}` });

/** Polls until the cell is gone (missing) or terminated, tolerating a still-active observer. */
function untilRetired({ wait }: Scenario, session: Session, cellId: string) {
  return pollUntil(async () => {
    try {
      const outcome = await wait(session, cellId, 1);
      return outcome.state === "missing" || outcome.kind === "terminated" ? outcome : undefined;
    } catch (error) {
      if ((error as { rawMessage?: string }).rawMessage === `exec cell ${cellId} already has an active observer`) return undefined;
      throw error;
    }
  }, `cell ${cellId} retired`);
}

/** Polls, as long as the target may take to notice a dropped lease, until a Wait on the session gets not_found. */
function untilSessionGone({ target, waitRaw }: Scenario, session: Session) {
  return pollUntil(
    async () => {
      const error = await rpcError(waitRaw(session, "1", 1)).catch(() => undefined);
      return error?.code === Code.NotFound ? error : undefined;
    },
    "the dropped lease's session to retire",
    target.differences.leaseDropNoticedWithinMs,
  );
}

/**
 * Streams their client drops. `idleNoticed`: whether the target, asked for heartbeats or not, can
 * see a client leave a stream on which nothing is written; where it cannot, the scenarios that
 * need it are skipped (docs/code-mode.md#platform-differences).
 */
function droppedStreams(scenario: Scenario, idleNoticed: boolean): void {
  const { target, open, subscribe, execute, wait, concurrentWaits, client } = scenario;
  const whereNoticed = it.skipIf(!idleNoticed);

  /** A subscription the host accepted (sent its headers), or how it refused it. */
  async function trySubscribe(sessionId: string): Promise<"accepted" | RpcError> {
    const caller = new AbortController();
    const accepted = deferred<"accepted">();
    const stream = client.subscribeToToolCalls(
      { sessionId, toolNames: [] },
      {
        signal: caller.signal,
        onHeader: (header) => {
          if (target.subscriptionAccepted(header)) accepted.resolve("accepted");
        },
      },
    );
    const refused = rpcError(stream[Symbol.asyncIterator]().next(), "SubscribeToToolCalls");
    refused.catch(() => {});
    try {
      return await bounded(Promise.race([accepted.promise, refused]), "SubscribeToToolCalls to answer");
    } finally {
      caller.abort();
    }
  }

  whereNoticed("still uses up and closes the cell of an Execute cancelled before its start, and the next cell works", async () => {
    const session = await open();
    // Gone as soon as the host has answered the call (its headers), before reading `started`.
    const cancelled = execute(session, FOREVER, { yieldTimeMs: 60_000, onHeader: () => cancelled.abort() });
    await session.cellClosed("1");
    expect(await untilRetired(scenario, session, "1")).toEqual(missing("1"));
    expect(observed(await execute(session, `text("still alive");`).outcome())).toEqual(completed("2", [text("still alive")]));
  });

  it("leaves a cell live and yielded when its Execute is dropped after the yield was sent", async () => {
    const session = await open();
    const cell = execute(session, FOREVER, { yieldTimeMs: 1 });
    expect(observed(await cell.outcome())).toEqual(yielded("1"));
    cell.abort();
    expect(await wait(session, "1", 1)).toEqual(live(yielded("1")));
    expect(session.closedCells()).toEqual([]);
  });

  whereNoticed("terminates and closes a cell whose Execute is dropped while it waits for its yield, and the next cell works", async () => {
    const session = await open();
    const cell = execute(session, FOREVER, { yieldTimeMs: 60_000 });
    expect((await cell.started()).cellId).toBe("1");
    cell.abort();
    await session.cellClosed("1");
    expect(await untilRetired(scenario, session, "1")).toEqual(missing("1"));
    expect(observed(await execute(session, `text("still alive");`).outcome())).toEqual(completed("2", [text("still alive")]));
  });

  whereNoticed("retires a session whose lease is dropped, with its cells: later calls get not_found", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    session.dropLease();
    const gone = await untilSessionGone(scenario, session);
    expect(gone).toEqual(unknownSession(session));
  });

  whereNoticed("makes SubscribeToToolCalls return not_found once the lease is dropped", async () => {
    const session = await open();
    session.dropLease();
    // As the seed does: subscribe, and while the host still accepts (headers), drop that subscription and retry.
    const gone = await pollUntil(
      async () => {
        const attempt = await trySubscribe(session.id);
        return attempt === "accepted" ? undefined : attempt;
      },
      "SubscribeToToolCalls to return not_found",
      target.differences.leaseDropNoticedWithinMs,
    );
    expect(gone).toEqual(unknownSession(session));
  });

  whereNoticed("cancels a wait that is active when the lease is dropped", async () => {
    const session = await open();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
    const { active } = await concurrentWaits(session, "1", [60_000, 60_000]);
    const waiting = rpcError(active.response, "the wait cut short by the dropped lease", target.differences.leaseDropNoticedWithinMs);
    session.dropLease();
    expect(await waiting).toEqual({ code: Code.Canceled, message: "code-mode wait was cancelled" });
  });

  whereNoticed("closes the session when a subscription closes while its calls are pending", async () => {
    const session = await open();
    const subscription = await subscribe(session, { handler: () => "hold" });
    const cell = execute(session, `await tools.echo({});`, { enabledTools: [echo], yieldTimeMs: 60_000 });
    await subscription.callNamed("echo");
    subscription.close();
    const end = await bounded(session.ended, "the lease to end");
    expect(end.error === undefined ? "OK" : end.error.code).toBe("OK");
    expect((await cell.finished()).events.map((e) => e.event.case)).toEqual(["started"]);
    expect(await rpcError(client.closeSession({ sessionId: session.id }))).toEqual(unknownSession(session));
  });
}

describeTargets("abandoned executions, closed sessions and dropped streams", (scenario) => {
  const { open, execute, wait, waitRaw, terminate, concurrentWaits, client } = scenario;

  it("terminates and closes a yielded cell its caller terminates on going away, and the next cell works", async () => {
    const session = await open();
    const cell = execute(session, FOREVER, { yieldTimeMs: 1 });
    expect((await cell.started()).cellId).toBe("1");
    // The yield is buffered for the caller; a wait now observes the live cell.
    expect(
      await pollUntil(async () => (await wait(session, "1", 1).catch(() => undefined)) ?? undefined, "a wait on the yielded cell"),
    ).toEqual(live(yielded("1")));
    // The Rust client's drop of a started cell is a Terminate on the wire.
    expect(await terminate(session, "1")).toEqual(live(terminated("1")));
    await session.cellClosed("1");
    expect(await untilRetired(scenario, session, "1")).toEqual(missing("1"));
    expect(observed(await execute(session, `text("still alive");`).outcome())).toEqual(completed("2", [text("still alive")]));
  });

  it("stops a cell that spins without end on Terminate, and the session's next cell works", async () => {
    const session = await open();
    expect(observed(await execute(session, "while (true) {}", { yieldTimeMs: 100 }).outcome())).toEqual(yielded("1"));
    expect(await terminate(session, "1")).toEqual(live(terminated("1")));
    expect(observed(await execute(session, `text("after the loop");`).outcome())).toEqual(completed("2", [text("after the loop")]));
  });

  it("ends CloseSession's running cells without an outcome or cell_closed, cancels active waits, and ends the lease", async () => {
    const session = await open();
    const running = execute(session, FOREVER, { yieldTimeMs: 60_000 });
    await running.started();
    expect(observed(await execute(session, FOREVER, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("2"));
    const { active } = await concurrentWaits(session, "2", [60_000, 60_000]);
    const waiting = rpcError(active.response, "the wait cut short by CloseSession");
    await session.close();
    expect(await waiting).toEqual({ code: Code.Canceled, message: "code-mode wait was cancelled" });
    const end = await running.finished();
    expect({ events: end.events.map((e) => e.event.case), error: asRpcError(end.error) }).toEqual({
      events: ["started"],
      error: undefined,
    });
    expect(asRpcError((await session.ended).error)).toBeUndefined();
    expect(session.closedCells()).toEqual([]);
  });

  it("answers every call on a closed session with not_found", async () => {
    const session = await open();
    await session.close();
    const ended = executeOn(client, session.id, `text("too late");`);
    expect(asRpcError((await ended.finished()).error)).toEqual(unknownSession(session));
    expect(await rpcError(waitRaw(session, "1", 1))).toEqual(unknownSession(session));
    expect(await rpcError(client.terminate({ sessionId: session.id, cellId: "1" }))).toEqual(unknownSession(session));
    expect(await rpcError(client.subscribeToToolCalls({ sessionId: session.id, toolNames: [] })[Symbol.asyncIterator]().next())).toEqual(
      unknownSession(session),
    );
    expect(await rpcError(client.closeSession({ sessionId: session.id }))).toEqual(unknownSession(session));
    expect(await rpcError(client.cancelWait({ sessionId: session.id, waitId: "w" }))).toEqual(unknownSession(session));
    expect(await rpcError(client.yieldObservation({ sessionId: session.id, observation: { case: "waitId", value: "w" } }))).toEqual(
      unknownSession(session),
    );
    expect(await rpcError(client.acknowledgeNotification({ sessionId: session.id, notificationId: randomUUID() }))).toEqual(
      unknownSession(session),
    );
  });

  droppedStreams(scenario, true);
});

describeTargets(
  "streams dropped by a plain client, which asks for no heartbeats",
  (scenario) => {
    const { target, open, execute } = scenario;
    droppedStreams(scenario, target.differences.idleDropNoticed);

    it("retires a session whose lease is dropped while its cell sends notifications", async () => {
      const session = await open();
      const source = `for (;;) { notify("tick"); await new Promise((resolve) => setTimeout(resolve, 100)); }`;
      expect(observed(await execute(session, source, { yieldTimeMs: 1 }).outcome())).toEqual(yielded("1"));
      await session.notification();
      session.dropLease();
      // Writes follow the drop here: byok-edge sees the client gone when one fails (docs/code-mode.md#leases).
      const gone = await untilSessionGone(scenario, session);
      expect(gone).toEqual(unknownSession(session));
    });
  },
  { heartbeats: false },
);
