// A CompleteToolCall's reply goes out before its cell moves on (docs/code-mode.md#tool-calls):
// the session object hands the tool's output to the cell only once the runtime takes the reply.
// Driven inside the object, through its own fetch, so that the test holds the reply unread
// for as long as it likes (through a stub the runtime reads a reply at once). The backstop that
// hands the output over anyway (1 s after the reply was ready) is the test's to fire: held here,
// it never fires, however slowly the machine runs.
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { setHandOverBackstop } from "../../../../src/code-mode/host/after-reply.ts";
import { codeModeSessionName } from "../../../../src/core/object-names.ts";
import { PRINCIPAL_HEADER, SESSION_ID_HEADER } from "../../../../src/code-mode/host/session-service.ts";
import { CodeModeHost, ToolKind } from "../../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import type { CodeModeSessionObject } from "../../../../src/durable/code-mode-session-object.ts";
import { deferred, withTimeout } from "../../../support/deferred.ts";

const WAIT_MS = 5_000;
const echo = { name: "echo", toolName: { name: "echo" }, description: "echoes", kind: ToolKind.FUNCTION };

/** A Connect client of the object's own fetch; `hold` keeps a CompleteToolCall reply unread until it resolves. */
function objectClient(object: CodeModeSessionObject, hold: Promise<void>, onAnswered: () => void) {
  const transport = createConnectTransport({
    baseUrl: "https://code-mode-session.internal",
    useBinaryFormat: true,
    fetch: async (input, init) => {
      const request = new Request(input as RequestInfo, { ...init, redirect: "manual" } as RequestInit);
      const response = await object.fetch(request);
      if (request.url.endsWith("/CompleteToolCall")) {
        onAnswered();
        await hold;
      }
      return response;
    },
  });
  return createClient(CodeModeHost, transport);
}

describe("CompleteToolCall", () => {
  it("hands the tool's output to its cell only once the runtime takes the reply, so the reply goes out first", async () => {
    const sessionId = crypto.randomUUID();
    const stub = env.CODE_MODE.getByName(codeModeSessionName("local", sessionId));
    await runInDurableObject(stub, async (object: CodeModeSessionObject) => {
      const backstops: (() => void)[] = [];
      const hold = deferred();
      const answered = deferred();
      const client = objectClient(object, hold.promise, answered.resolve);
      const lease = new AbortController();
      const events = client
        .openSession({}, { signal: lease.signal, headers: { [SESSION_ID_HEADER]: sessionId, [PRINCIPAL_HEADER]: "local" } })
        [Symbol.asyncIterator]();
      setHandOverBackstop((run) => {
        backstops.push(run);
        return () => undefined;
      });
      try {
        expect((await withTimeout(events.next(), WAIT_MS, "opened")).value?.event.case).toBe("opened");
        const subscribed = deferred();
        const calls = client
          .subscribeToToolCalls({ sessionId }, { signal: lease.signal, onHeader: () => subscribed.resolve() })
          [Symbol.asyncIterator]();
        const firstCall = calls.next();
        await withTimeout(subscribed.promise, WAIT_MS, "the subscription's headers");
        // Yields at once: nobody observes the cell while its tool call is completed.
        const execute = client.execute({
          sessionId,
          executionId: "e1",
          toolCallId: "call-1",
          source: 'await tools.echo({}); text("after")',
          enabledTools: [echo],
          yieldTimeMs: 1n,
        });
        for await (const _ of execute) {
          // started, then the yielded outcome
        }
        const call = (await withTimeout(firstCall, WAIT_MS, "the tool call")).value;
        const completed = client.completeToolCall({
          sessionId,
          invocationId: call?.invocationId ?? "",
          outcome: { case: "succeeded", value: { outputJson: new TextEncoder().encode('"out"') } },
        });
        await withTimeout(answered.promise, WAIT_MS, "the object's answer to CompleteToolCall");
        expect(backstops).toHaveLength(1); // the output waits for the reply, and not on the clock
        // The completion is accepted, its reply not taken yet: the cell is still waiting for the tool.
        const held = await client.wait({ sessionId, cellId: "1", waitId: "w1", yieldTimeMs: 300n });
        expect(held.state).toMatchObject({ case: "liveCell", value: { cellId: "1", outcome: { case: "yielded" }, contentItems: [] } });
        hold.resolve();
        await withTimeout(completed, WAIT_MS, "the CompleteToolCall reply");
        const after = await client.wait({ sessionId, cellId: "1", waitId: "w2", yieldTimeMs: 10_000n });
        expect(after.state).toMatchObject({
          case: "liveCell",
          value: { cellId: "1", outcome: { case: "completed" }, contentItems: [{ item: { case: "text", value: { text: "after" } } }] },
        });
        await client.closeSession({ sessionId });
      } finally {
        setHandOverBackstop();
        hold.resolve();
        lease.abort();
      }
    });
  });
});
