// What out-of-order appends may hold in a conversation object (docs/protocol.md#limits):
// a seqno window, a byte cap per request, and nothing held once the request's run ends;
// and how many calls may wait in a principal's router for a seqno 0 that has not come.
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { conversationName, routerName } from "../../../src/core/object-names.ts";
import type { RouterObject } from "../../../src/durable/router-object.ts";
import { ROUTE_WAITERS_MAX } from "../../../src/cursor/routes/route-rules.ts";
import { WAITING_PRINCIPAL_MAX_BYTES } from "../../../src/cursor/routes/waiting-bytes.ts";
import type { ConversationObject } from "../../../src/durable/conversation-object.ts";
import { REQUEST_HELD_MAX_BYTES, SEQNO_WINDOW } from "../../../src/cursor/session/inbox.ts";
import { toBinary } from "@bufbuild/protobuf";
import { AgentClientMessageSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { chatText, createScenario, withGates } from "../../support/fake-provider.ts";
import { bidiAppend, heartbeat, nextSeqno, startTurn, userMessageAction } from "../../support/cursor-client.ts";

const MIB = 1024 * 1024;

function heldBytes(conversationId: string): Promise<number> {
  const stub = env.CONVERSATION.getByName(conversationName("local", conversationId));
  return runInDurableObject(stub, (instance: ConversationObject) => instance.heldAppendBytes());
}

/** A turn whose provider waits at a gate after its first chunk, so the run stays live; `later`: the answers of the next turns. */
async function heldTurn(tag: string, later: string[] = []) {
  const scenario = await createScenario([withGates(chatText(["one ", "two"]), { 1: "hold" }), ...later.map((text) => chatText([text]))]);
  const conversationId = crypto.randomUUID();
  const turn = await startTurn({ conversationId, text: `${tag} ${scenario.marker}` });
  await scenario.reached("hold");
  return { ...turn, scenario, conversationId };
}

async function errorOf(res: Response) {
  return { status: res.status, ...((await res.json()) as { code: string; message: string }) };
}

describe("append limits", () => {
  it(`refuses an append_seqno more than ${SEQNO_WINDOW} ahead of the next one with invalid_argument`, async () => {
    const { requestId, reader, scenario } = await heldTurn("far");
    // Seqno 0 went by, so 1 is next: 1 + window is the farthest that may wait.
    const far = await errorOf(await bidiAppend(requestId, 1 + SEQNO_WINDOW + 1, heartbeat()));
    // (heartbeats, which the run ignores; the client's own replies go on at 1, 2, …)
    expect(far).toMatchObject({ status: 400, code: "invalid_argument" });
    expect(far.message).toContain(`more than ${SEQNO_WINDOW} ahead`);
    const edge = await bidiAppend(requestId, 1 + SEQNO_WINDOW, heartbeat());
    expect(edge.status).toBe(200);
    await edge.arrayBuffer();
    await scenario.release("hold");
    expect(await reader.end()).toEqual({});
  });

  it("refuses appends waiting for a gap past the request's byte cap with resource_exhausted, and frees them when the run is replaced", async () => {
    const { requestId, reader, conversationId, scenario } = await heldTurn("bytes", ["next"]);
    // One message's hex, sent at every seqno (encoding it once keeps the test quick).
    const bigHex = toHex(toBinary(AgentClientMessageSchema, userMessageAction(`big ${"x".repeat(3 * MIB)}`, "m-big")));
    const big = (n: number) => bidiAppend(requestId, n, null, { data: bigHex });
    nextSeqno(requestId); // the gap: this seqno never comes, so every append after it waits
    let seqno = nextSeqno(requestId);
    let res = await big(seqno);
    while (res.status === 200 && seqno < 40) {
      await res.arrayBuffer();
      seqno = nextSeqno(requestId);
      res = await big(seqno);
    }
    const refused = await errorOf(res);
    expect(refused).toMatchObject({ status: 429, code: "resource_exhausted" });
    expect(refused.message).toContain(`${REQUEST_HELD_MAX_BYTES / MIB} MiB for this request`);
    const held = await heldBytes(conversationId);
    expect(held).toBeLessThanOrEqual(REQUEST_HELD_MAX_BYTES);
    expect(held).toBeGreaterThan(REQUEST_HELD_MAX_BYTES - 4 * MIB);
    // A turn on another request replaces the held one: its run is cancelled, its stream ends.
    const replacing = await startTurn({ conversationId, text: `replace ${scenario.marker}` });
    expect(await replacing.reader.end()).toEqual({});
    expect((await reader.end()).error?.code).toBe("canceled");
    expect(await heldBytes(conversationId)).toBe(0);
  }, 60_000);

  it("frees a request's waiting appends when its run ends, and a later turn never sees them", async () => {
    const { requestId, reader, conversationId, scenario } = await heldTurn("frees", ["second", "third"]);
    const marker = `left-behind-${crypto.randomUUID()}`;
    const gap = nextSeqno(requestId);
    const waiting = await bidiAppend(requestId, nextSeqno(requestId), userMessageAction(marker, "late-1"));
    expect(waiting.status).toBe(200);
    await waiting.arrayBuffer();
    expect(await heldBytes(conversationId)).toBeGreaterThan(0);
    // A turn on another request of the conversation replaces the held run.
    const replacing = await startTurn({ conversationId, text: `replace ${scenario.marker}` });
    expect(await replacing.reader.end()).toEqual({});
    expect((await reader.end()).error?.code).toBe("canceled");
    expect(await heldBytes(conversationId)).toBe(0);
    // The gap fills after the end: nothing that waited is released into the conversation.
    const fill = await bidiAppend(requestId, gap, heartbeat());
    expect(fill.status).toBe(200);
    await fill.arrayBuffer();
    const turn = await startTurn({ conversationId, text: `after ${scenario.marker}` });
    expect(await turn.reader.end()).toEqual({});
    expect(turn.reader.text()).toBe("third");
    const requests = await scenario.requests(3);
    expect(JSON.stringify(requests[2])).not.toContain(marker);
    expect(await heldBytes(conversationId)).toBe(0);
  });

  it(`refuses a call beyond ${ROUTE_WAITERS_MAX} waiting for unbound requests at once with resource_exhausted, and still routes the waiting ones`, async () => {
    const router = env.ROUTER.getByName(routerName("local"));
    const flooded = crypto.randomUUID();
    const waiting = await runInDurableObject(router, (instance: RouterObject) =>
      Array.from({ length: ROUTE_WAITERS_MAX }, () => instance.resolve(flooded)),
    );
    // One more, for any other unbound request, through the worker: refused now, not after the 30 s wait.
    const refused = await errorOf(await bidiAppend(crypto.randomUUID(), 1, heartbeat()));
    expect(refused).toMatchObject({ status: 429, code: "resource_exhausted" });
    expect(refused.message).toContain(`${ROUTE_WAITERS_MAX} calls are already waiting`);
    const conversationId = crypto.randomUUID();
    await runInDurableObject(router, (instance: RouterObject) => instance.bind(flooded, conversationId));
    const results = await Promise.all(waiting);
    expect(results.every((r) => r.status === "routed" && r.conversationId === conversationId)).toBe(true);
    // The slots are free again: a call for an unbound request waits as before (here: 1 ms), not refused.
    const free = await runInDurableObject(router, (instance: RouterObject) => instance.resolve(crypto.randomUUID(), { waitMs: 1 }));
    expect(free).toEqual({ status: "timeout" });
  });

  // Five 14 MiB appends through the worker, the router and the conversation: about 20 s on this
  // 2-core machine alone, so it gets a bound of its own rather than the project's 20 s.
  it(`refuses appends waiting for their run_request once one principal's would hold more than ${WAITING_PRINCIPAL_MAX_BYTES / MIB} MiB, and frees their bytes when they are routed`, {
    timeout: 60_000,
  }, async () => {
    const router = env.ROUTER.getByName(routerName("local"));
    const waitingCalls = () => runInDurableObject(router, (instance: RouterObject) => instance.waitingCalls());
    /** Bounded: each append reaches the router once its 28 MiB body is read and decoded. */
    const untilWaiting = async (n: number) => {
      const deadline = Date.now() + 40_000;
      while (Date.now() < deadline) if ((await waitingCalls()) >= n) return;
      throw new Error(`fewer than ${n} calls ever waited at the router`);
    };
    const large = () => userMessageAction("x".repeat(14 * MIB), crypto.randomUUID());
    const before = await waitingCalls();
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const held = [bidiAppend(a, 1, large()), bidiAppend(b, 1, large())];
    await untilWaiting(before + 2);
    // 28 MiB wait; 14 more would pass the cap: refused at once, not after the 30 s wait.
    const refused = await errorOf(await bidiAppend(crypto.randomUUID(), 1, large()));
    expect(refused).toMatchObject({ status: 429, code: "resource_exhausted" });
    expect(refused.message).toContain(
      `your appends waiting for their run_request would hold more than ${WAITING_PRINCIPAL_MAX_BYTES / MIB} MiB`,
    );
    for (const requestId of [a, b]) {
      await runInDurableObject(router, (instance: RouterObject) => instance.bind(requestId, crypto.randomUUID()));
    }
    for (const res of await Promise.all(held)) await res.arrayBuffer();
    // Their bytes are free again: another large append waits instead of being refused.
    const c = crypto.randomUUID();
    const next = bidiAppend(c, 1, large());
    await untilWaiting(before + 1);
    await runInDurableObject(router, (instance: RouterObject) => instance.bind(c, crypto.randomUUID()));
    expect((await next).status).not.toBe(429);
  });
});
