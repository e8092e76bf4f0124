// Ids, reuse and request validation (docs/code-mode.md#differential-suite;
// code-mode §6.22–23 and §7 "Unknown ids"): every refusal's code and exact text.
import { randomUUID } from "node:crypto";
import { Code } from "@connectrpc/connect";
import { expect, it } from "vitest";
import { type ExecuteRequest, ToolKind, type WaitRequest } from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { bounded } from "../support/bounds.ts";
import { type ExecuteEnd, execute as executeOn, functionTool } from "../support/execute.ts";
import { asRpcError, completed, observed, rpcError, text } from "../support/outcomes.ts";
import { describeTargets } from "../support/scenario.ts";
import { completion } from "../support/tools.ts";

const invalid = (message: string) => ({ code: Code.InvalidArgument, message });
const encoder = new TextEncoder();

describeTargets("ids, reuse and validation", ({ open, subscribe, execute, client }) => {
  /** An Execute that must be refused: its stream fails before `started`. */
  async function refusedExecute(sessionId: string, request: Partial<ExecuteRequest>) {
    const stream = client.execute({
      sessionId,
      executionId: randomUUID(),
      toolCallId: "call-1",
      source: `text("x");`,
      enabledTools: [],
      yieldTimeMs: 5_000n,
      ...request,
    });
    const events: string[] = [];
    try {
      for await (const event of stream) events.push(event.event.case ?? "none");
    } catch (error) {
      return { events, ...(await rpcError(Promise.reject(error))) };
    }
    return { events, code: "OK" };
  }

  const waitRequest = (sessionId: string, request: Partial<WaitRequest>) =>
    client.wait({ sessionId, cellId: "1", waitId: randomUUID(), yieldTimeMs: 1n, ...request });

  it("sends started, then exactly one outcome for the same cell with the host's duration, then ends", async () => {
    const session = await open();
    const cell = execute(session, `text("x");`);
    const end: ExecuteEnd = await cell.finished();
    expect(asRpcError(end.error)).toBeUndefined();
    expect(end.events.map((e) => e.event.case)).toEqual(["started", "outcome"]);
    const [started, outcome] = end.events.map((e) => e.event.value);
    expect(started).toEqual(expect.objectContaining({ executionId: cell.executionId, cellId: "1" }));
    expect(outcome).toEqual(expect.objectContaining({ cellId: "1" }));
    expect((outcome as { codeModeHostDurationNs: bigint }).codeModeHostDurationNs).toBeGreaterThan(0n);
  });

  it("refuses a reused execution id without using up a cell id", async () => {
    const session = await open();
    const executionId = randomUUID();
    expect(observed(await execute(session, `text("first");`, { executionId }).outcome())).toEqual(completed("1", [text("first")]));
    expect(await refusedExecute(session.id, { executionId })).toEqual({
      events: [],
      code: Code.AlreadyExists,
      message: `code-mode execution ID \`${executionId}\` was reused`,
    });
    expect(observed(await execute(session, `text("next");`).outcome())).toEqual(completed("2", [text("next")]));
  });

  it("refuses a reused wait id", async () => {
    const session = await open();
    await bounded(waitRequest(session.id, { waitId: "w" }), "the first wait");
    expect(await rpcError(waitRequest(session.id, { waitId: "w" }))).toEqual({
      code: Code.AlreadyExists,
      message: "code-mode wait ID `w` was reused",
    });
  });

  it("accepts any non-empty execution and wait ids of up to 256 bytes", async () => {
    const session = await open();
    expect(observed(await execute(session, `text("x");`, { executionId: "e".repeat(256) }).outcome())).toEqual(completed("1", [text("x")]));
    expect(observed(await execute(session, `text("y");`, { executionId: "not a uuid" }).outcome())).toEqual(completed("2", [text("y")]));
    expect(await refusedExecute(session.id, { executionId: "e".repeat(257) })).toEqual({
      events: [],
      ...invalid("code-mode execution ID exceeds 256 bytes"),
    });
    expect(await rpcError(waitRequest(session.id, { waitId: "w".repeat(257) }))).toEqual(invalid("code-mode wait ID exceeds 256 bytes"));
    expect(await rpcError(waitRequest(session.id, { cellId: "1".repeat(257) }))).toEqual(invalid("code-mode cell ID exceeds 256 bytes"));
    expect(await refusedExecute(session.id, { toolCallId: "t".repeat(257) })).toEqual({
      events: [],
      ...invalid("code-mode tool call ID exceeds 256 bytes"),
    });
  });

  it("refuses empty ids, naming the field", async () => {
    const session = await open();
    expect(await refusedExecute("", {})).toEqual({ events: [], ...invalid("code-mode session ID must not be empty") });
    expect(await refusedExecute(session.id, { executionId: "" })).toEqual({
      events: [],
      ...invalid("code-mode execution ID must not be empty"),
    });
    expect(await refusedExecute(session.id, { toolCallId: "" })).toEqual({
      events: [],
      ...invalid("code-mode tool call ID must not be empty"),
    });
    expect(await rpcError(waitRequest(session.id, { cellId: "" }))).toEqual(invalid("code-mode cell ID must not be empty"));
    expect(await rpcError(waitRequest(session.id, { waitId: "" }))).toEqual(invalid("code-mode wait ID must not be empty"));
    expect(await rpcError(client.terminate({ sessionId: session.id, cellId: "" }))).toEqual(invalid("code-mode cell ID must not be empty"));
    expect(await rpcError(client.cancelWait({ sessionId: session.id, waitId: "" }))).toEqual(
      invalid("code-mode wait ID must not be empty"),
    );
    expect(await rpcError(client.yieldObservation({ sessionId: session.id, observation: { case: "executionId", value: "" } }))).toEqual(
      invalid("code-mode execution ID must not be empty"),
    );
    expect(await rpcError(client.yieldObservation({ sessionId: session.id, observation: { case: undefined } }))).toEqual(
      invalid("missing code-mode observation ID"),
    );
    expect(await rpcError(client.acknowledgeNotification({ sessionId: session.id, notificationId: "" }))).toEqual(
      invalid("code-mode notification ID must not be empty"),
    );
    expect(await rpcError(client.completeToolCall(completion(session.id, "", { output: null })))).toEqual(
      invalid("code-mode tool invocation ID must not be empty"),
    );
  });

  it("refuses session, notification and invocation ids that are not UUIDs", async () => {
    const session = await open();
    const notUuid = invalid("code-mode session ID must be a UUID");
    expect(await refusedExecute("session-1", {})).toEqual({ events: [], ...notUuid });
    expect(await rpcError(waitRequest("session-1", {}))).toEqual(notUuid);
    expect(await rpcError(client.closeSession({ sessionId: "session-1" }))).toEqual(notUuid);
    expect(await rpcError(client.subscribeToToolCalls({ sessionId: "session-1", toolNames: [] })[Symbol.asyncIterator]().next())).toEqual(
      notUuid,
    );
    expect(await rpcError(client.acknowledgeNotification({ sessionId: session.id, notificationId: "n-1" }))).toEqual(
      invalid("code-mode notification ID must be a UUID"),
    );
    expect(await rpcError(client.completeToolCall(completion(session.id, "i-1", { output: null })))).toEqual(
      invalid("code-mode tool invocation ID must be a UUID"),
    );
  });

  it("answers calls on a session that never existed with not_found", async () => {
    const sessionId = randomUUID();
    const unknown = { code: Code.NotFound, message: `unknown code-mode session ${sessionId}` };
    expect(await refusedExecute(sessionId, {})).toEqual({ events: [], ...unknown });
    expect(await rpcError(client.closeSession({ sessionId }))).toEqual(unknown);
    expect(await rpcError(waitRequest(sessionId, {}))).toEqual(unknown);
  });

  it("accepts CancelWait, YieldObservation and AcknowledgeNotification for ids it does not know", async () => {
    const session = await open();
    await bounded(client.cancelWait({ sessionId: session.id, waitId: "never-used" }), "CancelWait");
    await bounded(
      client.yieldObservation({ sessionId: session.id, observation: { case: "executionId", value: "never-used" } }),
      "YieldObservation",
    );
    await bounded(
      client.yieldObservation({ sessionId: session.id, observation: { case: "waitId", value: "never-used" } }),
      "YieldObservation",
    );
    await bounded(client.acknowledgeNotification({ sessionId: session.id, notificationId: randomUUID() }), "AcknowledgeNotification");
  });

  it("refuses tool definitions without a kind or a tool name, or with an empty name or a bad schema", async () => {
    const session = await open();
    const refused = (tool: ReturnType<typeof functionTool>) => refusedExecute(session.id, { enabledTools: [tool] });
    expect(await refused(functionTool("a", { kind: ToolKind.UNSPECIFIED }))).toEqual({
      events: [],
      ...invalid("tool definition has an invalid kind"),
    });
    expect(await refused(functionTool("a", { kind: 7 as ToolKind }))).toEqual({
      events: [],
      ...invalid("tool definition has an invalid kind"),
    });
    expect(await refused({ ...functionTool("a"), toolName: undefined })).toEqual({
      events: [],
      ...invalid("tool definition is missing its tool name"),
    });
    expect(await refused({ ...functionTool("a"), name: "" })).toEqual({
      events: [],
      ...invalid("code-mode tool definition name must not be empty"),
    });
    expect(await refused({ ...functionTool("a"), inputSchemaJson: encoder.encode("{bad") })).toEqual({
      events: [],
      ...invalid("invalid tool input schema: key must be a string at line 1 column 2"),
    });
  });

  it("refuses more than 64 subscription filters and an empty filter name", async () => {
    const session = await open();
    const next = (toolNames: { name: string }[]) =>
      client.subscribeToToolCalls({ sessionId: session.id, toolNames })[Symbol.asyncIterator]().next();
    expect(await rpcError(next(Array.from({ length: 65 }, (_, i) => ({ name: `t${i}` }))))).toEqual(
      invalid("code-mode tool subscription exceeds 64 filters"),
    );
    expect(await rpcError(next([{ name: "" }]))).toEqual(invalid("code-mode tool name must not be empty"));
  });

  it("refuses a completion without an outcome or with bad JSON, answers an unknown invocation with not_found, and accepts a repeat", async () => {
    const session = await open();
    const subscription = await subscribe(session, { handler: () => "hold" });
    const cell = execute(session, `text(await tools.echo({}));`, { enabledTools: [functionTool("echo")] });
    const call = await subscription.callNamed("echo");
    const request = (outputJson?: string) => ({
      sessionId: session.id,
      invocationId: call.invocationId,
      outcome:
        outputJson === undefined
          ? { case: undefined }
          : {
              case: "succeeded" as const,
              value: { $typeName: "codex.code_mode.v1.ToolCallSucceeded" as const, outputJson: encoder.encode(outputJson) },
            },
    });
    expect(await rpcError(client.completeToolCall(request()))).toEqual(invalid("tool completion is missing its outcome"));
    expect(await rpcError(client.completeToolCall(request("{bad")))).toEqual(
      invalid("invalid code-mode tool output JSON: key must be a string at line 1 column 2"),
    );
    expect(await rpcError(client.completeToolCall(request("")))).toEqual(
      invalid("invalid code-mode tool output JSON: EOF while parsing a value at line 1 column 0"),
    );
    const unknown = randomUUID();
    expect(await rpcError(client.completeToolCall(completion(session.id, unknown, { output: null })))).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode tool invocation ${unknown}`,
    });
    const elsewhere = await open();
    expect(await rpcError(client.completeToolCall(completion(elsewhere.id, call.invocationId, { output: null })))).toEqual({
      code: Code.NotFound,
      message: `unknown code-mode tool invocation ${call.invocationId}`,
    });
    await bounded(client.completeToolCall(request('"ok"')), "the completion");
    await bounded(client.completeToolCall(completion(session.id, call.invocationId, { error: "late" })), "a repeated completion");
    expect(observed(await cell.outcome())).toEqual(completed("1", [text("ok")]));
  });

  it("ignores fields it does not know in OpenSessionRequest (as the Codex CLI sends field 3)", async () => {
    const lease = new AbortController();
    const stream = client.openSession(
      { cellExecutionLimits: undefined, $unknown: [{ no: 3, wireType: 0, data: new Uint8Array([0x01]) }] },
      { signal: lease.signal },
    );
    try {
      const first = await bounded(stream[Symbol.asyncIterator]().next(), "the opened event");
      const event = first.done ? undefined : first.value.event;
      if (event?.case !== "opened") throw new Error(`the lease did not start with opened: ${event?.case}`);
      const sessionId = event.value.sessionId;
      expect(observed(await executeOn(client, sessionId, `text("ok");`).outcome())).toEqual(completed("1", [text("ok")]));
      await client.closeSession({ sessionId });
    } finally {
      lease.abort();
    }
  });
});
