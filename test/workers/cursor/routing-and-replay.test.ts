// How RunSSE and concurrent BidiAppends find their conversation and each other:
// seqno order, heartbeats across gaps, and replay to late and second subscribers.
import { describe, expect, it, vi } from "vitest";
import { chatText, createScenario, withGates } from "../../support/fake-provider.ts";
import { exports } from "cloudflare:workers";
import { env, runInDurableObject } from "cloudflare:test";
import { LOCAL_PRINCIPAL_ID } from "../../../src/hosting/store/local-account.ts";
import { routerName } from "../../../src/core/object-names.ts";
import { create, toBinary } from "@bufbuild/protobuf";
import { AgentClientMessageSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiAppendRequestSchema } from "../../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { appendOk, BASE, nextSeqno, FrameReader, heartbeat, runRequest, startTurn, updateCase } from "../../support/cursor-client.ts";
import { toHex } from "../../../src/core/bytes.ts";
import type { RouterObject } from "../../../src/durable/router-object.ts";

/** Calls waiting in the single user's router for a seqno 0. */
function routerWaiting(): Promise<number> {
  return runInDurableObject(env.ROUTER.getByName(routerName(LOCAL_PRINCIPAL_ID)), (router: RouterObject) => router.waitingCalls());
}

describe("routing appends and streams", () => {
  it("answers a heartbeat that arrives before seqno 0 once the run_request binds the request", async () => {
    const scenario = await createScenario([chatText(["ok"])]);
    const requestId = crypto.randomUUID();
    const reader = FrameReader.open(requestId);
    // Seqnos 2 and 1 arrive first; both wait for the route, then for the gap.
    const early = [appendOk(requestId, 2, heartbeat()), appendOk(requestId, 1, heartbeat())];
    await appendOk(requestId, 0, runRequest({ conversationId: crypto.randomUUID(), text: `hi ${scenario.marker}` }));
    await Promise.all(early);
    const stream = await reader;
    expect(await stream.end()).toEqual({});
    expect(stream.text()).toBe("ok");
    expect((await scenario.requests()).length).toBe(1);
  });

  it("answers a heartbeat that reached the router before its RunSSE as soon as the RunSSE arrives, and the run then completes", async () => {
    const scenario = await createScenario([chatText(["after the beat"])]);
    const requestId = crypto.randomUUID();
    const before = await routerWaiting();
    // The heartbeat at seqno 1 overtakes both the RunSSE and seqno 0: it waits at the router alone.
    const beat = appendOk(requestId, 1, heartbeat());
    await vi.waitFor(async () => expect(await routerWaiting()).toBeGreaterThan(before), { timeout: 5_000 });
    const stream = await FrameReader.open(requestId);
    await stream.until((f) => updateCase(f) === "heartbeat", "the server heartbeat before seqno 0");
    await appendOk(requestId, 0, runRequest({ conversationId: crypto.randomUUID(), text: `beat first ${scenario.marker}` }));
    await beat;
    expect(await stream.end()).toEqual({});
    expect(stream.text()).toBe("after the beat");
  });

  it("answers a heartbeat at once even when an earlier seqno is still missing", async () => {
    const scenario = await createScenario([withGates(chatText(["done"]), { 1: "hold" })]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `wait ${scenario.marker}` });
    await scenario.reached("hold");
    // Seqno 1 never arrives; the heartbeat at seqno 5 must not wait for it.
    await appendOk(requestId, 5, heartbeat());
    await reader.until((f) => updateCase(f) === "heartbeat", "the server heartbeat");
    // Filling the gap lets the held appends (and the client's later replies) through.
    await Promise.all([1, 2, 3, 4].map((n) => appendOk(requestId, n, heartbeat())));
    await scenario.release("hold");
    expect(await reader.end()).toEqual({});
  });

  it("ignores a duplicated run_request at seqno 0 instead of starting a second run", async () => {
    const scenario = await createScenario([chatText(["once"])]);
    const requestId = crypto.randomUUID();
    const message = runRequest({ conversationId: crypto.randomUUID(), text: `once ${scenario.marker}` });
    const reader = FrameReader.open(requestId);
    await appendOk(requestId, 0, message);
    await appendOk(requestId, 0, message);
    expect(await (await reader).end()).toEqual({});
    expect((await scenario.requests()).length).toBe(1);
  });

  it("replays every frame to a subscriber that arrives after the turn ended, and to a second one", async () => {
    const scenario = await createScenario([chatText(["re", "play"])]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `replay ${scenario.marker}` });
    expect(await reader.end()).toEqual({});

    const late = await FrameReader.open(requestId, { respond: false });
    expect(await late.end()).toEqual({});
    const second = await FrameReader.open(requestId, { respond: false });
    expect(await second.end()).toEqual({});
    // Blob transfers leave the replay once the run is over (nothing is left to answer).
    const shape = (r: FrameReader) => r.kinds().filter((k) => k !== "kvServerMessage" && k !== "heartbeat");
    expect(shape(late)).toEqual(shape(reader));
    expect(shape(second)).toEqual(shape(reader));
    expect(late.kinds()).not.toContain("kvServerMessage");
    expect(late.text()).toBe("replay");
  });

  it("gives a second live subscriber the frames it missed and then the same live frames", async () => {
    const scenario = await createScenario([withGates(chatText(["a", "b"]), { 2: "mid" })]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `two ${scenario.marker}` });
    await reader.until((f) => updateCase(f) === "textDelta", "the first delta");
    const second = await FrameReader.open(requestId, { respond: false });
    await scenario.release("mid");
    expect(await reader.end()).toEqual({});
    expect(await second.end()).toEqual({});
    expect(second.text()).toBe("ab");
  });

  it("sends idle heartbeats while a running turn is quiet, without adding them to the replay", async () => {
    const scenario = await createScenario([withGates(chatText(["late"]), { 1: "quiet" })]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `quiet ${scenario.marker}` });
    await scenario.reached("quiet");
    // The session checks every second and beats after 5 s of silence.
    await reader.until((f) => updateCase(f) === "heartbeat", "an idle heartbeat", 9_000);
    await scenario.release("quiet");
    expect(await reader.end()).toEqual({});
    const replay = await FrameReader.open(requestId, { respond: false });
    await replay.end();
    expect(replay.kinds()).not.toContain("heartbeat");
  }, 20_000);

  it("routes a bound request's later appends and a second RunSSE without asking the router again", async () => {
    const scenario = await createScenario([withGates(chatText(["known"]), { 1: "hold" })]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `known ${scenario.marker}` });
    await scenario.reached("hold");
    // The router forgets the route: only the edge's knowledge can route what follows.
    await runInDurableObject(env.ROUTER.getByName(routerName(LOCAL_PRINCIPAL_ID)), (_router, state) => {
      state.storage.kv.delete(`route:${requestId}`);
    });
    await appendOk(requestId, nextSeqno(requestId), heartbeat());
    const second = FrameReader.open(requestId, { respond: false });
    await scenario.release("hold");
    expect(await reader.end()).toEqual({});
    expect(await (await second).end()).toEqual({});
    expect((await second).text()).toBe("known");
  });

  it("accepts a gzip-compressed BidiAppend body", async () => {
    const scenario = await createScenario([chatText(["zipped"])]);
    const requestId = crypto.randomUUID();
    const reader = FrameReader.open(requestId);
    const body = toBinary(
      BidiAppendRequestSchema,
      create(BidiAppendRequestSchema, {
        data: toHex(toBinary(AgentClientMessageSchema, runRequest({ conversationId: crypto.randomUUID(), text: `gz ${scenario.marker}` }))),
        requestId: { requestId },
        appendSeqno: BigInt(nextSeqno(requestId)),
      }),
    );
    const gzipped = new Uint8Array(await new Response(new Blob([body]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer());
    const res = await exports.default.fetch(`${BASE}/aiserver.v1.BidiService/BidiAppend`, {
      method: "POST",
      headers: { authorization: "Bearer test-token", "content-type": "application/proto", "content-encoding": "gzip" },
      body: gzipped,
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const stream = await reader;
    expect(await stream.end()).toEqual({});
    expect(stream.text()).toBe("zipped");
  });
});
