// Principals cannot reach each other's requests or conversations: object names
// are scoped by the principal (src/core/object-names.ts), so another principal's
// request id or conversation id, sent through BidiAppend or RunSSE, lands in the
// sender's own objects and the victim's run goes on untouched.
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { conversationName } from "../../../src/core/object-names.ts";
import { chatText, createScenario, withGates } from "../../support/fake-provider.ts";
import { bidiAppend, clientMessage, FrameReader, heartbeat, runRequest, runSse, startTurn } from "../../support/cursor-client.ts";
import { createTeam, member } from "../../support/admin-client.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

const cancel = () => clientMessage({ message: { case: "conversationAction", value: { action: { case: "cancelAction", value: {} } } } });

function runsOf(principal: string, conversationId: string) {
  return runInDurableObject(env.CONVERSATION.getByName(conversationName(principal, conversationId)), (_instance, state) =>
    state.storage.sql.exec<{ status: string; request_id: string }>("SELECT status, request_id FROM runs").toArray(),
  );
}

/** Reads a RunSSE opened with `token` to its end. */
async function streamOf(requestId: string, token: string): Promise<FrameReader> {
  const res = await runSse(requestId, { token });
  if (res.status !== 200 || !res.body) throw new Error(`RunSSE → ${res.status}: ${await res.text()}`);
  return new FrameReader(res.body, requestId, { respond: false });
}

describe("isolation between principals", () => {
  it("keeps another user's cancel, heartbeat, RunSSE and run_request on the victim's ids away from the victim's running turn", async () => {
    const scenario = await createScenario([withGates(chatText(["victim ", "answer"]), { 1: "held" })]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader: victim } = await startTurn({ conversationId, text: `mine ${scenario.marker}` });
    await scenario.reached("held");

    const team = await createTeam();
    const attacker = await member(team.id, "member");
    // The attacker's appends and stream wait in the attacker's own router, for a seqno 0 of its own.
    const cancelled = bidiAppend(requestId, 1, cancel(), { token: attacker.token });
    const beat = bidiAppend(requestId, 2, heartbeat(), { token: attacker.token });
    const attackerStream = streamOf(requestId, attacker.token);
    const bound = await bidiAppend(requestId, 0, runRequest({ conversationId, text: "let me in", model: "fake-model" }), {
      token: attacker.token,
    });
    expect(bound.status).toBe(200);
    expect((await cancelled).status).toBe(200);
    expect((await beat).status).toBe(200);

    // The attacker's stream is its own request in its own conversation object: a heartbeat, then its own refusal.
    const stolen = await attackerStream;
    const end = await stolen.end();
    expect(end.error?.code).toBe("not_found");
    expect(stolen.text()).toBe("");

    await scenario.release("held");
    expect(await victim.end()).toEqual({});
    expect(victim.text()).toBe("victim answer");
    expect(await runsOf("local", conversationId)).toEqual([{ status: "completed", request_id: requestId }]);
    // The attacker's run_request was refused in its own object before any run started (it has no models).
    expect(await runsOf(attacker.user.id, conversationId)).toEqual([]);
    // The provider saw only the victim's own call.
    expect((await scenario.requests()).length).toBe(1);
  });

  it("gives a user's RunSSE on a teammate's request id nothing of the teammate's stream", async () => {
    const team = await createTeam();
    const victim = await member(team.id, "member");
    const peer = await member(team.id, "member");
    const requestId = crypto.randomUUID();
    const conversationId = crypto.randomUUID();
    const own = bidiAppend(requestId, 0, runRequest({ conversationId, text: "mine", model: "victim-model" }), { token: victim.token });
    expect((await own).status).toBe(200);
    const victimEnd = await (await streamOf(requestId, victim.token)).end();
    expect(victimEnd.error?.message).toContain('"victim-model"');

    // The peer's stream and heartbeat wait in the peer's own router until the peer's own seqno 0.
    const peerStream = streamOf(requestId, peer.token);
    const beat = bidiAppend(requestId, 1, heartbeat(), { token: peer.token });
    expect(
      (await bidiAppend(requestId, 0, runRequest({ conversationId, text: "theirs", model: "peer-model" }), { token: peer.token })).status,
    ).toBe(200);
    expect((await beat).status).toBe(200);
    const peerEnd = await (await peerStream).end();
    expect(peerEnd.error?.message).toContain('"peer-model"');
    expect(peerEnd.error?.message).not.toContain("victim-model");

    // The victim's request still replays its own end, not the peer's.
    const again = await (await streamOf(requestId, victim.token)).end();
    expect(again.error?.message).toContain('"victim-model"');
  });

  it("keeps a user of another team, on the victim's request and conversation ids, away from the victim's live run; each runs on its own key", async () => {
    const scenario = await createScenario([withGates(chatText(["victim ", "answer"]), { 1: "held" }), chatText(["attacker answer"])]);
    const hosted = async (key: string) => {
      const user = await member((await createTeam()).id, "member");
      const credential = await storeCredential(user.token, "user", key);
      await storeModel(user.token, { name: "fake-model", model: "fake-1", credential_id: credential.id, scope: "user" });
      return user;
    };
    const victimKey = "sk-victim-isolation-key-0123456789";
    const attackerKey = "sk-attacker-isolation-key-9876543210";
    const victim = await hosted(victimKey);
    const attacker = await hosted(attackerKey);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn(
      { conversationId, text: `mine ${scenario.marker}` },
      { headers: { authorization: `Bearer ${victim.token}` } },
    );
    await scenario.reached("held");

    const cancelled = bidiAppend(requestId, 1, cancel(), { token: attacker.token });
    const attackerStream = streamOf(requestId, attacker.token);
    const bound = await bidiAppend(requestId, 0, runRequest({ conversationId, text: `attack ${scenario.marker}` }), {
      token: attacker.token,
    });
    expect(bound.status).toBe(200);
    expect((await cancelled).status).toBe(200);
    // The attacker's cancel reached the attacker's own run, in the attacker's own object.
    expect((await (await attackerStream).end()).error?.code).toBe("canceled");

    await scenario.release("held");
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("victim answer");
    expect(await runsOf(victim.user.id, conversationId)).toEqual([{ status: "completed", request_id: requestId }]);
    const [first] = await scenario.requests(1);
    expect(first?.headers.authorization).toBe(`Bearer ${victimKey}`);
  });
});
