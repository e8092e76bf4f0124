// What ends cells and sessions, seen from the client (docs/code-mode.md#leases):
// CloseSession with a running Execute and an active Wait, an Execute stream dropped
// before its outcome, a subscription leaving with calls pending; observation ids;
// stored values in the object's SQLite.
import { Code } from "@connectrpc/connect";
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { codeModeSessionName } from "../../../../src/core/object-names.ts";
import { ToolKind } from "../../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { codeModeClient, collect, failure, openLease, subscribe } from "../../../support/code-mode-host.ts";
import { deferred, withTimeout } from "../../../support/deferred.ts";

const echo = { name: "echo", toolName: { name: "echo" }, description: "", kind: ToolKind.FUNCTION };
const forever = "await new Promise(() => {})";

describe("ending cells and sessions", () => {
  it("closes a session at once: a running Execute ends OK without an outcome, an active Wait is cancelled, no cell_closed", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const { sessionId } = lease;
    const started = deferred<void>();
    const running = (async () => {
      const events = [];
      for await (const event of client.execute({
        sessionId,
        executionId: "long",
        toolCallId: "c",
        source: forever,
        yieldTimeMs: 60_000n,
      })) {
        events.push(event.event.case);
        started.resolve();
      }
      return events;
    })();
    await withTimeout(started.promise, 5_000, "the long cell's start");
    const yielded = await collect(client.execute({ sessionId, executionId: "short", toolCallId: "c", source: forever, yieldTimeMs: 1n }));
    expect(yielded[1]).toMatchObject({ case: "outcome", value: { cellId: "2", outcome: { case: "yielded" } } });
    const waiting = failure(client.wait({ sessionId, cellId: "2", waitId: "w1", yieldTimeMs: 60_000n }));
    await client.closeSession({ sessionId });
    expect(await running).toEqual(["started"]);
    expect(await waiting).toEqual({ code: Code.Canceled, message: "code-mode wait was cancelled" });
    expect(await lease.next("the lease's end")).toBe("end");
    expect(await failure(collect(client.execute({ sessionId, executionId: "late", toolCallId: "c", source: "1" })))).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode session ${sessionId}`,
    });
  });

  it("terminates a cell whose Execute stream is dropped before its outcome, cancelling its tool call", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const { sessionId } = lease;
    const subscription = subscribe(client, sessionId);
    await subscription.ready;
    const controller = new AbortController();
    const dropped = collect(
      client.execute(
        { sessionId, executionId: "e1", toolCallId: "c", source: "await tools.echo({})", enabledTools: [echo], yieldTimeMs: 60_000n },
        { signal: controller.signal },
      ),
    ).catch(() => "dropped");
    const call = await subscription.next();
    if (call === "end") throw new Error("the subscription ended");
    controller.abort();
    expect(await dropped).toBe("dropped");
    expect(await lease.next("the call's cancellation")).toEqual({
      case: "toolCallCancelled",
      value: expect.objectContaining({ invocationId: call.invocationId }),
    });
    expect(await lease.next("the cell's closing")).toMatchObject({
      case: "cellClosed",
      value: { executionId: "e1", cellId: "1", finalToolCallSequence: 1n },
    });
    // The cancelled invocation counts as settled.
    await client.completeToolCall({ sessionId, invocationId: call.invocationId, outcome: { case: "failed", value: { message: "late" } } });
    const next = await collect(
      client.execute({ sessionId, executionId: "e2", toolCallId: "c", source: 'text("still here")', yieldTimeMs: 5_000n }),
    );
    expect(next[1]).toMatchObject({ case: "outcome", value: { cellId: "2" } });
    subscription.close();
    await client.closeSession({ sessionId });
  });

  it("closes the session when a subscription leaves with a call pending", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const { sessionId } = lease;
    const subscription = subscribe(client, sessionId);
    await subscription.ready;
    const running = collect(
      client.execute({
        sessionId,
        executionId: "e1",
        toolCallId: "c",
        source: "await tools.echo({})",
        enabledTools: [echo],
        yieldTimeMs: 60_000n,
      }),
    );
    expect(await subscription.next()).toMatchObject({ runtimeToolCallId: "tool-1" });
    subscription.close();
    expect(await lease.next("the lease's end")).toBe("end");
    expect((await running).map((event) => event.case)).toEqual(["started"]);
  });

  it("keeps a subscription that leaves with nothing pending from closing the session", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const subscription = subscribe(client, lease.sessionId);
    await subscription.ready;
    subscription.close();
    const ok = await collect(
      client.execute({ sessionId: lease.sessionId, executionId: "e1", toolCallId: "c", source: 'text("ok")', yieldTimeMs: 5_000n }),
    );
    expect(ok[1]).toMatchObject({ case: "outcome", value: { outcome: { case: "completed" } } });
    await client.closeSession({ sessionId: lease.sessionId });
  });
});

describe("observation ids", () => {
  it("remembers an early CancelWait and an early YieldObservation for the observation that comes later", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const { sessionId } = lease;
    await client.yieldObservation({ sessionId, observation: { case: "executionId", value: "e1" } });
    const yielded = await collect(client.execute({ sessionId, executionId: "e1", toolCallId: "c", source: forever, yieldTimeMs: 60_000n }));
    expect(yielded[1]).toMatchObject({ case: "outcome", value: { outcome: { case: "yielded" } } });
    await client.cancelWait({ sessionId, waitId: "w1" });
    expect(await failure(client.wait({ sessionId, cellId: "1", waitId: "w1", yieldTimeMs: 60_000n }))).toEqual({
      code: Code.Canceled,
      message: "code-mode wait was cancelled",
    });
    expect(await failure(client.wait({ sessionId, cellId: "1", waitId: "w1", yieldTimeMs: 1n }))).toEqual({
      code: Code.AlreadyExists,
      message: "code-mode wait ID `w1` was reused",
    });
    await client.yieldObservation({ sessionId, observation: { case: "waitId", value: "w2" } });
    const early = await client.wait({ sessionId, cellId: "1", waitId: "w2", yieldTimeMs: 60_000n });
    expect(early.state).toMatchObject({ case: "liveCell", value: { outcome: { case: "yielded" } } });
    expect(await failure(client.yieldObservation({ sessionId }))).toEqual({
      code: Code.InvalidArgument,
      message: "missing code-mode observation ID",
    });
    expect((await client.terminate({ sessionId, cellId: "1" })).state).toMatchObject({
      case: "liveCell",
      value: { outcome: { case: "terminated" } },
    });
    await client.closeSession({ sessionId });
  });
});

function storedValues(sessionId: string) {
  return runInDurableObject(env.CODE_MODE.getByName(codeModeSessionName("local", sessionId)), (_instance, state) =>
    state.storage.sql.exec<{ key: string; value_json: string }>("SELECT key, value_json FROM code_mode_values").toArray(),
  );
}

describe("stored values", () => {
  it("keeps a completed cell's writes in the object's SQLite until the session closes", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const { sessionId } = lease;
    await collect(
      client.execute({ sessionId, executionId: "e1", toolCallId: "c", source: 'store("key", {a: [1, "two"]})', yieldTimeMs: 5_000n }),
    );
    expect(await storedValues(sessionId)).toEqual([{ key: "key", value_json: '{"a":[1,"two"]}' }]);
    const loaded = await collect(
      client.execute({ sessionId, executionId: "e2", toolCallId: "c", source: 'text(load("key"))', yieldTimeMs: 5_000n }),
    );
    expect(loaded[1]).toMatchObject({
      case: "outcome",
      value: { contentItems: [{ item: { case: "text", value: { text: '{"a":[1,"two"]}' } } }] },
    });
    await client.closeSession({ sessionId });
    // Nobody can reach them any more: the object's storage is gone (test/workers/code-mode/host/leases.test.ts).
  });
});
