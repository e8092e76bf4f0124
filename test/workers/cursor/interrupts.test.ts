// Interrupts (docs/protocol.md#interrupts) through the conversation Durable
// Object over the Cursor protocol. Every stream here is
// read to its end, which checks exactly one end-stream frame, last.
import { describe, expect, it, vi } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import type { ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { conversationName } from "../../../src/core/object-names.ts";
import { ConversationStore } from "../../../src/cursor/store/conversation-store.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import {
  appendOk,
  clientMessage,
  FrameReader,
  heartbeat,
  restartSeqnos,
  runRequest,
  startTurn,
  updateCase,
  userMessageAction,
  type Frame,
} from "../../support/cursor-client.ts";
import { readSuccess } from "../../support/exec-replies.ts";
import { deferred } from "../../support/deferred.ts";

const HANG = { steps: [{ hang: true as const }] };

const stubOf = (conversationId: string) => env.CONVERSATION.getByName(conversationName("local", conversationId));

const injectContext = (injectionId: string, expectedRunId: string, text: string, messageId: string) =>
  clientMessage({
    message: {
      case: "conversationAction",
      value: {
        action: {
          case: "injectContextAction",
          value: {
            injectionId,
            expectedRunId,
            payload: { case: "userContext", value: { userMessage: { text, messageId }, requestContext: {} } },
          },
        },
      },
    },
  });

const action = (init: Parameters<typeof clientMessage>[0]) => clientMessage(init);

function abortIds(frames: Frame[]): number[] {
  return frames.flatMap((f) =>
    f.kind === "message" && f.message.message.case === "execServerControlMessage" && f.message.message.value.message.case === "abort"
      ? [f.message.message.value.message.value.id]
      : [],
  );
}

function runRows(conversationId: string) {
  return runInDurableObject(stubOf(conversationId), (_instance, state) =>
    state.storage.sql.exec<{ status: string; request_id: string }>("SELECT status, request_id FROM runs ORDER BY created_at_ms").toArray(),
  );
}

describe("interrupts", () => {
  it("a replaced run cannot overwrite its cancelled status", async () => {
    const conversationId = crypto.randomUUID();
    const result = await runInDurableObject(stubOf(conversationId), (_instance, state) => {
      const store = new ConversationStore(drizzle(state.storage, { logger: false }));
      store.ensureConversation(conversationId, "local");
      store.claimRun({ runId: "first", conversationId, requestId: "r1", model: "m" });
      store.startLlmCall({
        callId: "first:0",
        runId: "first",
        conversationId,
        providerCallIndex: 0,
        attempt: 0,
        providerType: "openai-chat",
        providerUrl: "https://example.com/v1",
        credentialId: null,
        modelId: "model",
        displayName: "Model",
        messageCount: 1,
        toolCount: 0,
      });
      store.claimRun({ runId: "second", conversationId, requestId: "r2", model: "m" });
      const won = store.finishRun("first", "completed");
      return {
        won,
        status: store.latestRunOfRequest("r1")?.status,
        active: store.conversation(conversationId)?.activeRunId,
        call: state.storage.sql.exec("SELECT status, finished_at_ms, duration_ms FROM llm_calls WHERE call_id = 'first:0'").one(),
      };
    });
    expect(result.won).toBe(false);
    expect(result.status).toBe("cancelled");
    expect(result.active).toBe("second");
    expect(result.call.status).toBe("cancelled");
    expect(result.call.finished_at_ms).not.toBeNull();
    expect(result.call.duration_ms).not.toBeNull();
  });

  it("shutdown cancels the running run and closes every RunSSE with a canceled end-stream", async () => {
    const scenario = await createScenario([HANG]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `hang ${scenario.marker}` });
    await scenario.requests(1);
    const second = await FrameReader.open(reader.requestId, { respond: false });
    await stubOf(conversationId).shutdown();
    expect((await reader.end()).error?.code).toBe("canceled");
    expect((await second.end()).error?.code).toBe("canceled");
    expect((await runRows(conversationId))[0]?.status).toBe("cancelled");
  });

  it("a client heartbeat returns a server heartbeat at once, even when it arrives after a gap", async () => {
    const scenario = await createScenario([HANG]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn({ conversationId, text: `beat ${scenario.marker}` });
    await scenario.requests(1);
    await appendOk(requestId, 7, heartbeat());
    await reader.until((f) => updateCase(f) === "heartbeat", "the server heartbeat");
    await stubOf(conversationId).shutdown();
    expect((await reader.end()).error?.code).toBe("canceled");
  });

  it("answers a client heartbeat that arrives before its request's seqno 0 at once, and the run that follows completes", async () => {
    const scenario = await createScenario([chatText(["after the beat"])]);
    const conversationId = crypto.randomUUID();
    const requestId = crypto.randomUUID();
    let opened = false;
    const opening = FrameReader.open(requestId).then((reader) => {
      opened = true;
      return reader;
    });
    // The client beats every few seconds; the first beat after RunSSE reaches the router opens the stream.
    const beats: Promise<void>[] = [];
    await vi.waitFor(
      () => {
        if (!opened) beats.push(appendOk(requestId, beats.length + 1, heartbeat()));
        expect(opened).toBe(true);
      },
      { timeout: 5_000, interval: 100 },
    );
    const reader = await opening;
    await reader.until((f) => updateCase(f) === "heartbeat", "the server heartbeat");
    await appendOk(requestId, 0, runRequest({ conversationId, text: `beat first ${scenario.marker}` }));
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("after the beat");
    await Promise.all(beats);
  });

  it("a runtime user message aborts the active exec before the canceled end-stream", async () => {
    const scenario = await createScenario([chatToolCalls([{ id: "call-1", name: "Read", args: ['{"path":"/tmp/a"}'] }])]);
    const exec = deferred<ExecServerMessage>();
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `read ${scenario.marker}` },
      { onExec: (e) => exec.resolve(e) },
    );
    const pending = await exec.promise;
    await reader.send(userMessageAction("queued follow-up", "queued-user"));
    const end = await reader.end();
    expect(end.error?.code).toBe("canceled");
    const kinds = reader.kinds();
    const abortAt = kinds.indexOf("execServerControlMessage");
    expect(abortAt).toBeGreaterThan(-1);
    expect(abortAt).toBeLessThan(kinds.indexOf("end"));
    expect(abortIds(reader.frames)).toEqual([pending.id]);
  });

  it("injected user context restarts only the active model cycle", async () => {
    const scenario = await createScenario([HANG, chatText(["continued after injection"])]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn({ conversationId, text: `inject ${scenario.marker}` });
    await scenario.requests(1);
    await reader.send(injectContext("injection-1", requestId, "injected follow-up", "injected-user"));
    expect(await reader.end()).toEqual({});

    const events: string[] = [];
    for (const u of reader.updates()) {
      if (u.case === "contextInjectionState") {
        const value = u.value as {
          injectionId: string;
          state: { state: { case: string; value: { deliveryBatchId?: string; deliveredAtMs?: bigint } } };
        };
        expect(value.injectionId).toBe("injection-1");
        if (value.state.state.case === "delivered") {
          expect(value.state.state.value.deliveryBatchId).not.toBe("");
          expect(value.state.state.value.deliveredAtMs).toBeGreaterThan(0n);
        }
        events.push(value.state.state.case);
      } else if (u.case === "userMessageAppended") {
        const user = (u.value as { userMessage: { messageId: string; text: string } }).userMessage;
        expect(user).toMatchObject({ messageId: "injected-user", text: "injected follow-up" });
        events.push("user_message_appended");
      } else if (u.case === "textDelta" && (u.value as { text: string }).text.includes("continued after injection")) {
        events.push("continued_output");
      }
    }
    expect(events).toEqual(["queued", "delivered", "user_message_appended", "continued_output"]);
    const requests = await scenario.requests(2);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.body).toContain("injected follow-up");
    expect((await runRows(conversationId)).map((r) => r.status)).toEqual(["completed"]);
  });

  it("rejects an injection for another run once, with a reason, and the run goes on", async () => {
    const scenario = await createScenario([HANG, chatText(["never reached"])]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn({ conversationId, text: `wrong run ${scenario.marker}` });
    await scenario.requests(1);
    await reader.send(injectContext("inj-x", "some-other-run", "ignored", "u-x"));
    const rejected = await reader.until((f) => updateCase(f) === "contextInjectionState", "the rejection");
    const state =
      rejected.kind === "message" && rejected.message.message.case === "interactionUpdate"
        ? rejected.message.message.value.message
        : undefined;
    expect(state?.case === "contextInjectionState" && state.value.state?.state.case).toBe("rejected");
    expect(state?.case === "contextInjectionState" && state.value.state?.state.value).toMatchObject({
      reason: `InjectContextAction expected run some-other-run, active run is ${requestId}`,
    });
    expect((await runRows(conversationId))[0]?.status).toBe("running");
    await stubOf(conversationId).shutdown();
    expect((await reader.end()).error?.code).toBe("canceled");
    expect(reader.updates().filter((u) => u.case === "contextInjectionState")).toHaveLength(1);
  });

  it("cancel_action aborts every running exec, then ends canceled", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "a", name: "Read", args: ['{"path":"/a"}'] },
        { id: "b", name: "Shell", args: ['{"command":"sleep 100"}'] },
      ]),
    ]);
    const execs: ExecServerMessage[] = [];
    const both = deferred();
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `cancel ${scenario.marker}` },
      {
        onExec: (e) => {
          execs.push(e);
          if (execs.length === 2) both.resolve();
        },
      },
    );
    await both.promise;
    await reader.send(action({ message: { case: "conversationAction", value: { action: { case: "cancelAction", value: {} } } } }));
    expect((await reader.end()).error?.code).toBe("canceled");
    expect(abortIds(reader.frames).sort()).toEqual(execs.map((e) => e.id).sort());
    expect(reader.updates().map((u) => u.case)).not.toContain("turnEnded");
  });

  it("cancel_subagent_action aborts only that Task's exec and the parent continues", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "task-1", name: "Task", args: ['{"description":"d","prompt":"p","subagent_type":"explore"}'] }]),
      chatText(["went on without it"]),
    ]);
    const exec = deferred<ExecServerMessage>();
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `subagent ${scenario.marker}` },
      { onExec: (e) => exec.resolve(e) },
    );
    const task = await exec.promise;
    await reader.send(
      action({
        message: { case: "conversationAction", value: { action: { case: "cancelSubagentAction", value: { subagentId: "task-1" } } } },
      }),
    );
    expect(await reader.end()).toEqual({});
    expect(abortIds(reader.frames)).toEqual([task.id]);
    expect(reader.text()).toBe("went on without it");
    const [, second] = await scenario.requests(2);
    expect(second!.body).toContain("cancelled by the user");
  });

  it("gives unfinished calls of an interrupted round the synthetic result and leaves a Task exec running", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "read-1", name: "Read", args: ['{"path":"/slow"}'] },
        { id: "task-1", name: "Task", args: ['{"description":"d","prompt":"p","subagent_type":"explore"}'] },
      ]),
      chatText(["answering the new message"]),
    ]);
    const execs: ExecServerMessage[] = [];
    const both = deferred();
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn(
      { conversationId, text: `round ${scenario.marker}` },
      {
        onExec: (e) => {
          execs.push(e);
          if (execs.length === 2) both.resolve();
        },
      },
    );
    await both.promise;
    await reader.send(injectContext("inj-1", requestId, "actually, do this instead", "u-new"));
    expect(await reader.end()).toEqual({});
    const read = execs.find((e) => e.message.case === "readArgs")!;
    expect(abortIds(reader.frames)).toEqual([read.id]);
    const [, second] = await scenario.requests(2);
    const messages = (JSON.parse(second!.body) as { messages: { role: string; content: string; tool_call_id?: string }[] }).messages;
    const tail = messages.slice(-3);
    expect(tail.map((m) => m.role)).toEqual(["tool", "tool", "user"]);
    expect(tail[0]!.content).toBe("Tool execution was interrupted by a newer user message.");
    expect(tail[1]!.content).toBe("Tool execution was interrupted by a newer user message.");
    expect(tail[2]!.content).toBe("actually, do this instead");
  });

  it("cancels a running turn whose last subscriber left and did not come back within the grace period", async () => {
    const scenario = await createScenario([chatToolCalls([{ id: "r", name: "Read", args: ['{"path":"/x"}'] }])]);
    const exec = deferred<ExecServerMessage>();
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn({ conversationId, text: `leave ${scenario.marker}` }, { onExec: (e) => exec.resolve(e) });
    const pending = await exec.promise;
    await reader.cancel();
    // A reconnect after the grace period replays the abort and the canceled end.
    await vi.waitFor(async () => expect((await runRows(conversationId))[0]?.status).toBe("cancelled"), { timeout: 5_000, interval: 50 });
    const replay = await FrameReader.open(requestId, { respond: false });
    expect((await replay.end()).error?.code).toBe("canceled");
    expect(abortIds(replay.frames)).toEqual([pending.id]);
  });

  it("continues a running turn when its client reconnects within the grace period", async () => {
    const scenario = await createScenario([chatToolCalls([{ id: "r", name: "Read", args: ['{"path":"/x"}'] }]), chatText(["still here"])]);
    const exec = deferred<ExecServerMessage>();
    const { requestId, reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `blip ${scenario.marker}` },
      { onExec: (e) => exec.resolve(e) },
    );
    const pending = await exec.promise;
    await reader.cancel();
    const again = await FrameReader.open(requestId);
    await again.send(readSuccess(pending, "content"));
    expect(await again.end()).toEqual({});
    expect(again.text()).toBe("still here");
    expect(abortIds(again.frames)).toEqual([]);
  });

  it("records a run interrupted by an object restart as failed and serves the next request", async () => {
    const scenario = await createScenario([HANG, chatText(["after restart"])]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn({ conversationId, text: `restart ${scenario.marker}` });
    await scenario.requests(1);
    await runInDurableObject(stubOf(conversationId), (_instance, state) => {
      state.abort("simulated eviction");
    }).catch(() => undefined);
    // The open stream ends with one clear error, not a broken body.
    expect((await reader.end()).error?.code).toBe("unavailable");

    const rows = await runRows(conversationId);
    expect(rows.map((r) => r.status)).toEqual(["failed"]);
    const replay = await FrameReader.open(requestId, { respond: false });
    expect((await replay.end()).error?.code).toBe("unavailable");
    const next = await startTurn({ conversationId, text: "again" });
    expect(await next.reader.end()).toEqual({});
    expect(next.reader.text()).toBe("after restart");
  });

  it("queues a user message that arrives after the turn ended for the next run", async () => {
    const scenario = await createScenario([chatText(["first"]), chatText(["second"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `late ${scenario.marker}` });
    expect(await one.reader.end()).toEqual({});
    await appendOk(one.requestId, "next", userMessageAction("a late thought", "late-1"));
    const two = await startTurn({ conversationId, text: "next question" });
    expect(await two.reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    const contents = (JSON.parse(second!.body) as { messages: { role: string; content: string }[] }).messages.map((m) => m.content);
    expect(contents.slice(-2)).toEqual(["next question", "a late thought"]);
  });

  it("lets a second run_request on a live request replace its run, the stream going on with the new run", async () => {
    const scenario = await createScenario([HANG, chatText(["the newer run"])]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn({ conversationId, text: `first ${scenario.marker}` });
    await scenario.requests(1);
    await appendOk(requestId, "next", runRequest({ conversationId, text: "second" }));
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("the newer run");
    expect((await runRows(conversationId)).map((r) => r.status)).toEqual(["cancelled", "completed"]);
  });

  it("serves a later turn on a request id whose stream already ended, with fresh exec ids continuing the old ones", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "a", name: "Read", args: ['{"path":"/a"}'] }]),
      chatText(["one"]),
      chatToolCalls([{ id: "b", name: "Read", args: ['{"path":"/b"}'] }]),
      chatText(["two"]),
    ]);
    const conversationId = crypto.randomUUID();
    const ids: number[] = [];
    const behaviour = {
      onExec: (exec: ExecServerMessage, r: FrameReader) => {
        ids.push(exec.id);
        return r.send(readSuccess(exec, "x"));
      },
    };
    const first = await startTurn({ conversationId, text: `reuse ${scenario.marker}` }, behaviour);
    expect(await first.reader.end()).toEqual({});
    await appendOk(first.requestId, "next", runRequest({ conversationId, text: "again" }));
    const again = await FrameReader.open(first.requestId, behaviour);
    expect(await again.end()).toEqual({});
    expect(again.text()).toBe("two");
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBeGreaterThan(ids[0]!);
  });

  it("starts a new stream when a finished request id is reused from seqno 0, keeping exec ids unique", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "a", name: "Read", args: ['{"path":"/a"}'] }]),
      chatText(["one"]),
      chatToolCalls([{ id: "b", name: "Read", args: ['{"path":"/b"}'] }]),
      chatText(["two"]),
    ]);
    const conversationId = crypto.randomUUID();
    const ids: number[] = [];
    const onExec = (exec: ExecServerMessage, r: FrameReader) => {
      ids.push(exec.id);
      return r.send(readSuccess(exec, "x"));
    };
    const first = await startTurn({ conversationId, text: `again ${scenario.marker}` }, { onExec });
    expect(await first.reader.end()).toEqual({});
    restartSeqnos(first.requestId);
    await appendOk(first.requestId, 0, runRequest({ conversationId, text: "from zero" }));
    const again = await FrameReader.open(first.requestId, { onExec });
    expect(await again.end()).toEqual({});
    expect(again.text()).toBe("two");
    expect(ids[1]).toBeGreaterThan(ids[0]!);
  });

  it("takes a retried seqno 0 on a finished request as a retry, and still starts the request's later renumbering", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "a", name: "Read", args: ['{"path":"/a"}'] }]),
      chatText(["one"]),
      chatText(["two"]),
    ]);
    const conversationId = crypto.randomUUID();
    const requestId = crypto.randomUUID();
    const first = runRequest({ conversationId, requestId, text: `retry ${scenario.marker}` });
    const one = await startTurn({ conversationId, requestId, text: "", message: first }, { onExec: (e, r) => r.send(readSuccess(e, "x")) });
    expect(await one.reader.end()).toEqual({});
    await appendOk(requestId, 0, first); // the client retried its first append
    restartSeqnos(requestId);
    await appendOk(requestId, 0, runRequest({ conversationId, text: "renumbered" }));
    const two = await FrameReader.open(requestId);
    expect(await two.end()).toEqual({});
    expect(two.text()).toBe("two");
  });

  it("cancels a run nobody subscribes to once the disconnect grace has passed", async () => {
    const scenario = await createScenario([HANG]);
    const conversationId = crypto.randomUUID();
    await appendOk(crypto.randomUUID(), 0, runRequest({ conversationId, text: `alone ${scenario.marker}` }));
    await vi.waitFor(async () => expect((await runRows(conversationId))[0]?.status).toBe("cancelled"), { timeout: 5_000, interval: 50 });
  });

  it("delivers a user message that stopped a tool round to the next run exactly once", async () => {
    const scenario = await createScenario([chatToolCalls([{ id: "r", name: "Read", args: ['{"path":"/a"}'] }]), chatText(["on it"])]);
    const conversationId = crypto.randomUUID();
    const exec = deferred<ExecServerMessage>();
    const first = await startTurn({ conversationId, text: `first ${scenario.marker}` }, { onExec: (e) => exec.resolve(e) });
    await exec.promise;
    await first.reader.send(userMessageAction("do the other thing", "m-late"));
    expect((await first.reader.end()).error?.code).toBe("canceled");
    // Cursor then sends the same message as the next run_request.
    const second = await startTurn({ conversationId, text: "do the other thing", messageId: "m-late" });
    expect(await second.reader.end()).toEqual({});
    expect(second.reader.updates().filter((u) => u.case === "userMessageAppended")).toHaveLength(0);
    const [, request] = await scenario.requests(2);
    const contents = (JSON.parse(request!.body) as { messages: { content: string | null }[] }).messages.map((m) => m.content);
    expect(contents.filter((c) => c === "do the other thing")).toHaveLength(1);
  });

  it("keeps appends of a reused request's new numbering that overtake its seqno 0", async () => {
    const scenario = await createScenario([
      chatText(["one"]),
      chatToolCalls([{ id: "r", name: "Read", args: ['{"path":"/a"}'] }]),
      chatText(["two"]),
    ]);
    const conversationId = crypto.randomUUID();
    const first = await startTurn({ conversationId, text: `first ${scenario.marker}` });
    expect(await first.reader.end()).toEqual({});
    restartSeqnos(first.requestId);
    // A heartbeat at the new seqno 1 arrives before the new run_request at seqno 0.
    await appendOk(first.requestId, 1, heartbeat());
    await appendOk(first.requestId, 0, runRequest({ conversationId, text: "second" }));
    const again = await FrameReader.open(first.requestId, { onExec: (e, r) => r.send(readSuccess(e, "x")) });
    expect(await again.end()).toEqual({});
    expect(again.text()).toBe("two");
  });
});
