// Request checks after the session is found, with the codes and texts the reference
// host answers (docs/code-mode.md#errors): Execute's ids and tool definitions (before
// its execution id is taken), subscription filters, wait and cell ids.
import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { SUBSCRIPTION_READY_HEADER } from "../../../../src/code-mode/host/lease.ts";
import { ToolKind } from "../../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { codeModeClient, collect, failure, openLease, subscribe } from "../../../support/code-mode-host.ts";

const invalid = (message: string) => ({ code: Code.InvalidArgument, message });
const long = "x".repeat(257);

describe("request checks", () => {
  it("checks an Execute's ids, then its tool definitions, then the reuse of its execution id", async () => {
    const client = codeModeClient();
    const { sessionId } = await openLease(client);
    const execute = (fields: Record<string, unknown>) =>
      failure(collect(client.execute({ sessionId, executionId: "e", toolCallId: "c", source: "1", ...fields })));
    const tool = { name: "a", toolName: { name: "a" }, description: "", kind: ToolKind.FUNCTION };
    expect(await execute({ executionId: "", toolCallId: "" })).toEqual(invalid("code-mode execution ID must not be empty"));
    expect(await execute({ executionId: long })).toEqual(invalid("code-mode execution ID exceeds 256 bytes"));
    expect(await execute({ toolCallId: "" })).toEqual(invalid("code-mode tool call ID must not be empty"));
    expect(await execute({ enabledTools: [{ name: "a", kind: ToolKind.UNSPECIFIED }] })).toEqual(
      invalid("tool definition is missing its tool name"),
    );
    expect(await execute({ enabledTools: [{ ...tool, name: "", kind: ToolKind.UNSPECIFIED }] })).toEqual(
      invalid("code-mode tool definition name must not be empty"),
    );
    expect(await execute({ enabledTools: [{ ...tool, toolName: { name: "" } }] })).toEqual(
      invalid("code-mode tool name must not be empty"),
    );
    expect(await execute({ enabledTools: [{ ...tool, toolName: { name: "a", namespace: long } }] })).toEqual(
      invalid("code-mode tool namespace exceeds 256 bytes"),
    );
    expect(await execute({ enabledTools: [{ ...tool, kind: ToolKind.UNSPECIFIED }] })).toEqual(
      invalid("tool definition has an invalid kind"),
    );
    expect(await execute({ enabledTools: [{ ...tool, inputSchemaJson: new Uint8Array() }] })).toEqual(
      invalid("invalid tool input schema: EOF while parsing a value at line 1 column 0"),
    );
    expect(await execute({ enabledTools: [{ ...tool, outputSchemaJson: new TextEncoder().encode("[") }] })).toEqual(
      invalid("invalid tool output schema: EOF while parsing a list at line 1 column 1"),
    );
    // None of these took the id or a cell id.
    const events = await collect(client.execute({ sessionId, executionId: "e", toolCallId: "c", source: "1", yieldTimeMs: 5_000n }));
    expect(events[0]).toMatchObject({ case: "started", value: { cellId: "1" } });
    expect(await execute({ enabledTools: [{ name: "a", kind: ToolKind.FUNCTION }] })).toEqual(
      invalid("tool definition is missing its tool name"),
    );
    expect(await execute({})).toEqual({ code: Code.AlreadyExists, message: "code-mode execution ID `e` was reused" });
    await client.closeSession({ sessionId });
  });

  it("checks subscription filters: their number first, then each name", async () => {
    const client = codeModeClient();
    const { sessionId } = await openLease(client);
    const filters = (toolNames: { name: string; namespace?: string }[]) => failure(subscribe(client, sessionId, toolNames).next());
    expect(await filters(Array.from({ length: 65 }, () => ({ name: "" })))).toEqual(
      invalid("code-mode tool subscription exceeds 64 filters"),
    );
    expect(await filters([{ name: "", namespace: long }])).toEqual(invalid("code-mode tool name must not be empty"));
    expect(await filters([{ name: long }])).toEqual(invalid("code-mode tool name exceeds 256 bytes"));
    expect(await filters([{ name: "a", namespace: long }])).toEqual(invalid("code-mode tool namespace exceeds 256 bytes"));
    // Over Connect an early error comes with headers too; they do not say the subscription is ready.
    const refused = subscribe(client, sessionId, [{ name: "" }]);
    expect((await refused.ready).get(SUBSCRIPTION_READY_HEADER)).toBeNull();
    await failure(refused.next());
    const accepted = subscribe(client, sessionId);
    expect((await accepted.ready).get(SUBSCRIPTION_READY_HEADER)).toBe("ready");
    accepted.close();
    await client.closeSession({ sessionId });
  });

  it("checks cell and wait ids, and answers unknown cells, waits and notifications without an error", async () => {
    const client = codeModeClient();
    const { sessionId } = await openLease(client);
    expect(await failure(client.wait({ sessionId, cellId: "", waitId: "", yieldTimeMs: 1n }))).toEqual(
      invalid("code-mode cell ID must not be empty"),
    );
    expect(await failure(client.wait({ sessionId, cellId: "1", waitId: "", yieldTimeMs: 1n }))).toEqual(
      invalid("code-mode wait ID must not be empty"),
    );
    expect(await failure(client.wait({ sessionId, cellId: "1", waitId: long, yieldTimeMs: 1n }))).toEqual(
      invalid("code-mode wait ID exceeds 256 bytes"),
    );
    expect(await failure(client.terminate({ sessionId, cellId: "" }))).toEqual(invalid("code-mode cell ID must not be empty"));
    expect(await failure(client.cancelWait({ sessionId, waitId: "" }))).toEqual(invalid("code-mode wait ID must not be empty"));
    expect(await failure(client.yieldObservation({ sessionId, observation: { case: "executionId", value: "" } }))).toEqual(
      invalid("code-mode execution ID must not be empty"),
    );
    expect(await failure(client.completeToolCall({ sessionId, invocationId: crypto.randomUUID() }))).toEqual(
      invalid("tool completion is missing its outcome"),
    );
    expect(await failure(client.completeToolCall({ sessionId, invocationId: "i-1" }))).toEqual(
      invalid("code-mode tool invocation ID must be a UUID"),
    );
    await client.cancelWait({ sessionId, waitId: "never" });
    await client.yieldObservation({ sessionId, observation: { case: "waitId", value: "never-either" } });
    await client.acknowledgeNotification({ sessionId, notificationId: crypto.randomUUID() });
    await client.closeSession({ sessionId });
  });
});
