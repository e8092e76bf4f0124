// Fault suite, the client side (docs/testing.md#fault-suite): the client goes away at each
// phase of a turn, never to come back on that stream. The conversation object notices
// (the edge forwards the cancel), waits the disconnect grace (300 ms in tests), and
// settles the run; after each, the shared invariants hold.
import { describe, expect, it, vi } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { LOCAL_PRINCIPAL_ID } from "../../../../src/hosting/store/local-account.ts";
import { routerName } from "../../../../src/core/object-names.ts";
import type { RouterObject } from "../../../../src/durable/router-object.ts";
import { create, toBinary } from "@bufbuild/protobuf";
import { exports } from "cloudflare:workers";
import type { ExecServerMessage } from "../../../../src/proto/gen/agent/v1/agent_pb.ts";
import { AgentClientMessageSchema } from "../../../../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../../../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { encodeEnvelope, FLAG_MESSAGE } from "../../../../src/proto/connect/envelope.ts";
import { toHex } from "../../../../src/core/bytes.ts";
import { BASE, FrameReader, heartbeat, startTurn, updateCase, type Frame } from "../../../support/cursor-client.ts";
import { chatText, chatToolCalls, createScenario, withGates, type ScriptedResponse } from "../../../support/fake-provider.ts";
import { deferred, withTimeout } from "../../../support/deferred.ts";
import { checkAfterFault, expectNoRunRunning, runStatuses } from "./support/invariants.ts";

const NEXT = "the next answer";
const AUTH = { authorization: "Bearer test-token" };

/** A conversation with one completed turn ("first answer"), then the scripted responses of the faulted turn. */
async function conversationWithOneTurn(faulted: ScriptedResponse[]) {
  const scenario = await createScenario([chatText(["first answer"]), ...faulted, chatText([NEXT])]);
  const conversationId = crypto.randomUUID();
  const firstText = `first ${scenario.marker}`;
  const first = await startTurn({ conversationId, text: firstText });
  expect(await first.reader.end()).toEqual({});
  return { scenario, conversationId, first: first.reader, history: [`user: ${firstText}`, "assistant: first answer"] };
}

/** RunSSE and BidiAppend as a client that can hang up at any moment: both abort with `signal`. */
function rawRunSse(requestId: string, signal: AbortSignal): Promise<Response> {
  const body = encodeEnvelope(FLAG_MESSAGE, toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId })));
  return exports.default.fetch(`${BASE}/agent.v1.AgentService/RunSSE`, {
    method: "POST",
    headers: { "content-type": "application/connect+proto", ...AUTH },
    body,
    signal,
  });
}

function rawHeartbeat(requestId: string, seqno: number, signal: AbortSignal): Promise<Response> {
  const data = toHex(toBinary(AgentClientMessageSchema, heartbeat()));
  const body = toBinary(
    BidiAppendRequestSchema,
    create(BidiAppendRequestSchema, { data, requestId: { requestId }, appendSeqno: BigInt(seqno) }),
  );
  return exports.default.fetch(`${BASE}/aiserver.v1.BidiService/BidiAppend`, {
    method: "POST",
    headers: { "content-type": "application/proto", ...AUTH },
    body,
    signal,
  });
}

const isTextDelta = (f: Frame) => updateCase(f) === "textDelta";

/** Calls waiting in the single user's router for a seqno 0. */
function routerWaiting(): Promise<number> {
  return runInDurableObject(env.ROUTER.getByName(routerName(LOCAL_PRINCIPAL_ID)), (router: RouterObject) => router.waitingCalls());
}

describe("fault suite: client disconnect", () => {
  it("a client that opens RunSSE, beats once, never sends its run_request and leaves costs the conversation nothing and frees its place at the router", async () => {
    const c = await conversationWithOneTurn([]);
    const requestId = crypto.randomUUID();
    const gone = new AbortController();
    const opening = rawRunSse(requestId, gone.signal);
    // The stream opens on the first heartbeat before seqno 0 (docs/protocol.md#heartbeats).
    const beat = rawHeartbeat(requestId, 1, gone.signal).catch(() => undefined);
    const res = await withTimeout(opening, 10_000, "the RunSSE response");
    const reader = new FrameReader(res.body!, requestId, { respond: false });
    await reader.until((f) => updateCase(f) === "heartbeat", "the answered heartbeat");
    expect(await routerWaiting()).toBe(2); // the RunSSE and the heartbeat, both waiting for seqno 0
    await reader.cancel();
    gone.abort();
    await beat;
    // Not after the 30 s wait: the edge tells the router its caller left.
    await vi.waitFor(async () => expect(await routerWaiting()).toBe(0), { timeout: 5_000, interval: 20 });
    expect(await runStatuses(c.conversationId)).toEqual(["completed"]);
    await checkAfterFault({ ...c, ended: [c.first], nextAnswer: NEXT });
  });

  it("a client that leaves during the text stream gets its run cancelled, and the conversation goes on", async () => {
    const c = await conversationWithOneTurn([withGates(chatText(["some ", "text"]), { 2: "mid" })]);
    const text = `during text ${c.scenario.marker}`;
    const { reader } = await startTurn({ conversationId: c.conversationId, text });
    await reader.until(isTextDelta, "the first text");
    await c.scenario.reached("mid");
    await reader.cancel();
    await expectNoRunRunning(c.conversationId);
    expect(await runStatuses(c.conversationId)).toEqual(["completed", "cancelled"]);
    await checkAfterFault({ ...c, ended: [c.first], history: [...c.history, `user: ${text}`], nextAnswer: NEXT });
  });

  it("a client that leaves during a tool round, before answering the tool call, gets its run cancelled, and the conversation goes on", async () => {
    const c = await conversationWithOneTurn([chatToolCalls([{ id: "read-1", name: "Read", args: ['{"path":"/a"}'] }])]);
    const text = `during tools ${c.scenario.marker}`;
    const exec = deferred<ExecServerMessage>();
    const { reader } = await startTurn({ conversationId: c.conversationId, text }, { onExec: (e) => exec.resolve(e) });
    await withTimeout(exec.promise, 10_000, "the tool call");
    await reader.cancel();
    await expectNoRunRunning(c.conversationId);
    expect(await runStatuses(c.conversationId)).toEqual(["completed", "cancelled"]);
    // The unanswered call keeps its place with the synthetic result, so the history stays a valid call/result pair.
    const history = [
      ...c.history,
      `user: ${text}`,
      'assistant calls Read(read-1) {"path":"/a"}',
      "tool(read-1): Tool execution was interrupted before it returned a result.",
    ];
    await checkAfterFault({ ...c, ended: [c.first], history, nextAnswer: NEXT });
  });

  it.each([
    { what: "while a state blob waits for its acknowledgement", ackBlobs: false, leaveAt: "kvServerMessage" },
    { what: "while the checkpoints are being sent", ackBlobs: true, leaveAt: "conversationCheckpointUpdate" },
  ])("a client that leaves in the checkpoint tail $what keeps the turn's answer, and the conversation goes on", async (c0) => {
    const c = await conversationWithOneTurn([chatText(["the whole ", "answer"])]);
    const text = `tail ${c.scenario.marker}`;
    const { reader } = await startTurn({ conversationId: c.conversationId, text }, { ackBlobs: c0.ackBlobs });
    await reader.until(isTextDelta, "the text");
    await reader.until((f) => (updateCase(f) ?? (f.kind === "message" ? f.message.message.case : "end")) === c0.leaveAt, c0.leaveAt);
    expect(reader.text()).toBe("the whole answer");
    await reader.cancel();
    await expectNoRunRunning(c.conversationId);
    await checkAfterFault({
      ...c,
      ended: [c.first],
      history: [...c.history, `user: ${text}`, "assistant: the whole answer"],
      nextAnswer: NEXT,
    });
  });
});
