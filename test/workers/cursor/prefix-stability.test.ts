// The provider request prefix stays byte-identical from the first request of a
// conversation to the last: across tool rounds, turns and a recovered conversation.
import { describe, expect, it } from "vitest";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { startTurn, type ClientBehaviour } from "../../support/cursor-client.ts";
import { readSuccess } from "../../support/exec-replies.ts";
import { messagesPrefix, toolsJson } from "../../support/prefix.ts";

describe("prefix stability", () => {
  it("keeps every recorded request of a multi-round conversation a byte-for-byte extension of the one before", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "r1", name: "Read", args: ['{"path":"/a"}'] },
        { id: "r2", name: "Read", args: ['{"path":"/b"}'] },
      ]),
      chatToolCalls([{ id: "r3", name: "Read", args: ['{"path":"/c"}'] }]),
      chatText(["first turn done"]),
      chatToolCalls([{ id: "r4", name: "Read", args: ['{"path":"/d"}'] }]),
      chatText(["second turn done"]),
    ]);
    const conversationId = crypto.randomUUID();
    const behaviour: ClientBehaviour = { onExec: (exec, r) => r.send(readSuccess(exec, `content of ${exec.id}`)) };
    const one = await startTurn({ conversationId, text: `turn one ${scenario.marker}` }, behaviour);
    expect(await one.reader.end()).toEqual({});
    const two = await startTurn({ conversationId, text: "turn two" }, behaviour);
    expect(await two.reader.end()).toEqual({});

    const requests = await scenario.requests(5);
    expect(requests).toHaveLength(5);
    for (let i = 1; i < requests.length; i++) {
      expect(requests[i]!.body.startsWith(messagesPrefix(requests[i - 1]!.body)), `request ${i} extends request ${i - 1}`).toBe(true);
      expect(toolsJson(requests[i]!.body)).toBe(toolsJson(requests[0]!.body));
    }
  });
});
