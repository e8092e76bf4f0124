// Cells through the worker and the session object: Execute's two events, tool
// calls over a subscription and their completions, notifications and acks, and
// what the lease reports.
import { create } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import { Code } from "@connectrpc/connect";
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { codeModeSessionName } from "../../../../src/core/object-names.ts";
import { OpenSessionRequestSchema, ToolKind } from "../../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { codeModeClient, collect, failure, openLease, subscribe } from "../../../support/code-mode-host.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const echo = { name: "echo", toolName: { name: "echo" }, description: "echoes", kind: ToolKind.FUNCTION };

describe("cells through CodeModeHost", () => {
  it("streams started, then one outcome with the host's duration, and reports the cell closed on the lease", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const events = await collect(
      client.execute({ sessionId: lease.sessionId, executionId: "e1", toolCallId: "call-1", source: 'text("hi")', yieldTimeMs: 5000n }),
    );
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ case: "started", value: { executionId: "e1", cellId: "1" } });
    expect(events[1]).toMatchObject({
      case: "outcome",
      value: { cellId: "1", contentItems: [{ item: { case: "text", value: { text: "hi" } } }], outcome: { case: "completed" } },
    });
    const outcome = events[1]?.case === "outcome" ? events[1].value : undefined;
    expect(outcome?.codeModeHostDurationNs).toBeGreaterThan(0n);
    expect(await lease.next()).toMatchObject({ case: "cellClosed", value: { executionId: "e1", cellId: "1", finalToolCallSequence: 0n } });
    expect(await failure(collect(client.execute({ sessionId: lease.sessionId, executionId: "e1", toolCallId: "c", source: "1" })))).toEqual(
      {
        code: Code.AlreadyExists,
        message: "code-mode execution ID `e1` was reused",
      },
    );
    await client.closeSession({ sessionId: lease.sessionId });
  });

  it("applies the session's limits from OpenSession, ignoring a field it does not know", async () => {
    const client = codeModeClient();
    const request = create(OpenSessionRequestSchema, { cellExecutionLimits: { maxYieldTimeMs: 1n, maxHeapSizeBytes: 2n ** 64n - 1n } });
    // Codex 0.169 sends a field 3 that the reference schema lacks.
    request.$unknown = [{ no: 3, wireType: WireType.Varint, data: new Uint8Array([1]) }];
    const lease = await openLease(client, request);
    const events = await collect(
      client.execute({
        sessionId: lease.sessionId,
        executionId: "e1",
        toolCallId: "c",
        source: "await new Promise(() => {})",
        yieldTimeMs: 60_000n,
      }),
    );
    expect(events[1]).toMatchObject({ case: "outcome", value: { cellId: "1", outcome: { case: "yielded" } } });
    await client.closeSession({ sessionId: lease.sessionId });
  });

  it("sends a subscription's headers before any tool call, and routes a cell's calls to it in sequence", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const subscription = subscribe(client, lease.sessionId);
    await subscription.ready;
    const running = collect(
      client.execute({
        sessionId: lease.sessionId,
        executionId: "e1",
        toolCallId: "call-1",
        source: 'const r = await tools.echo({value: "v"}); const none = await tools.echo(); text(r.value + ":" + JSON.stringify(none))',
        enabledTools: [echo],
        yieldTimeMs: 10_000n,
      }),
    );
    const first = await subscription.next();
    if (first === "end") throw new Error("the subscription ended");
    expect(first).toMatchObject({
      sessionId: lease.sessionId,
      executionId: "e1",
      cellId: "1",
      runtimeToolCallId: "tool-1",
      toolName: { name: "echo" },
      toolKind: ToolKind.FUNCTION,
      sequence: 1n,
    });
    expect(first.invocationId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new TextDecoder().decode(first.inputJson)).toBe('{"value":"v"}');
    expect(
      await failure(
        client.completeToolCall({
          sessionId: lease.sessionId,
          invocationId: first.invocationId,
          outcome: { case: "succeeded", value: { outputJson: encode("{") } },
        }),
      ),
    ).toEqual({
      code: Code.InvalidArgument,
      message: "invalid code-mode tool output JSON: EOF while parsing an object at line 1 column 1",
    });
    await client.completeToolCall({
      sessionId: lease.sessionId,
      invocationId: first.invocationId,
      outcome: { case: "succeeded", value: { outputJson: encode('{"value":"out"}') } },
    });
    // A repeated completion is accepted silently.
    await client.completeToolCall({
      sessionId: lease.sessionId,
      invocationId: first.invocationId.toUpperCase(),
      outcome: { case: "failed", value: { message: "late" } },
    });
    const second = await subscription.next();
    if (second === "end") throw new Error("the subscription ended");
    expect(second).toMatchObject({ runtimeToolCallId: "tool-2", sequence: 2n });
    expect(second.inputJson).toBeUndefined();
    await client.completeToolCall({
      sessionId: lease.sessionId,
      invocationId: second.invocationId,
      outcome: { case: "succeeded", value: { outputJson: encode("null") } },
    });
    const events = await running;
    expect(events[1]).toMatchObject({
      case: "outcome",
      value: { contentItems: [{ item: { case: "text", value: { text: "out:null" } } }] },
    });
    expect(await lease.next()).toMatchObject({ case: "cellClosed", value: { cellId: "1", finalToolCallSequence: 2n } });
    const unknown = crypto.randomUUID();
    expect(
      await failure(
        client.completeToolCall({
          sessionId: lease.sessionId,
          invocationId: unknown,
          outcome: { case: "failed", value: { message: "m" } },
        }),
      ),
    ).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode tool invocation ${unknown}`,
    });
    subscription.close();
    await client.closeSession({ sessionId: lease.sessionId });
  });

  it("rejects a cell's call that no subscription matches, in the cell", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const subscription = subscribe(client, lease.sessionId, [{ name: "echo", namespace: "other" }]);
    await subscription.ready;
    const events = await collect(
      client.execute({
        sessionId: lease.sessionId,
        executionId: "e1",
        toolCallId: "call-1",
        source: "try { await tools.echo({}) } catch (e) { text(String(e)) }",
        enabledTools: [echo],
        yieldTimeMs: 10_000n,
      }),
    );
    expect(events[1]).toMatchObject({
      case: "outcome",
      value: { contentItems: [{ item: { case: "text", value: { text: "no code-mode tool subscription matches the requested tool" } } }] },
    });
    expect(await lease.next()).toMatchObject({ case: "cellClosed", value: { finalToolCallSequence: 0n } });
    subscription.close();
    await client.closeSession({ sessionId: lease.sessionId });
  });

  it("sends notifications on the lease with the exec call id, and acknowledges known and unknown ids alike", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    await collect(
      client.execute({
        sessionId: lease.sessionId,
        executionId: "e1",
        toolCallId: "call-7",
        source: 'notify("hello"); text("after")',
        yieldTimeMs: 5000n,
      }),
    );
    const notification = await lease.next();
    expect(notification).toMatchObject({
      case: "notification",
      value: { executionId: "e1", cellId: "1", callId: "call-7", text: "hello" },
    });
    const notificationId = notification !== "end" && notification.case === "notification" ? notification.value.notificationId : "";
    await client.acknowledgeNotification({ sessionId: lease.sessionId, notificationId });
    await client.acknowledgeNotification({ sessionId: lease.sessionId, notificationId: crypto.randomUUID() });
    expect(await failure(client.acknowledgeNotification({ sessionId: lease.sessionId, notificationId: "n-1" }))).toEqual({
      code: Code.InvalidArgument,
      message: "code-mode notification ID must be a UUID",
    });
    await client.closeSession({ sessionId: lease.sessionId });
  });

  it("keeps stored values larger than a storage row, multi-byte text included, for the session's next cells", async () => {
    const client = codeModeClient();
    const lease = await openLease(client);
    const run = (executionId: string, source: string) =>
      collect(client.execute({ sessionId: lease.sessionId, executionId, toolCallId: "c", source, yieldTimeMs: 20_000n }));
    const stored = await run("e1", `store("ascii", "x".repeat(3e6)); store("emoji", "\u{1F600}".repeat(1e6)); text("stored")`);
    expect(stored[1]).toMatchObject({ case: "outcome", value: { outcome: { case: "completed", value: {} } } });
    const loaded = await run("e2", `text(String(load("ascii") === "x".repeat(3e6) && load("emoji") === "\u{1F600}".repeat(1e6)))`);
    expect(loaded[1]).toMatchObject({ case: "outcome", value: { contentItems: [{ item: { case: "text", value: { text: "true" } } }] } });
    // Local SQLite takes any row; production's holds at most 2 MB, so no row may be larger.
    const object = env.CODE_MODE.getByName(codeModeSessionName("local", lease.sessionId));
    const largestRow = await runInDurableObject(object, (_instance, state) =>
      state.storage.sql.exec<{ bytes: number }>("SELECT max(length(CAST(value_json AS BLOB))) AS bytes FROM code_mode_values").one(),
    );
    expect(largestRow.bytes).toBeGreaterThan(1_000_000);
    expect(largestRow.bytes).toBeLessThan(2_000_000);
    await client.closeSession({ sessionId: lease.sessionId });
  });
});
