// Several tool calls of one model response run together.
import { describe, expect, it } from "vitest";
import type { ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { readSuccess } from "../../support/exec-replies.ts";

interface ChatRequest {
  messages: {
    role: string;
    content: string | null;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    tool_call_id?: string;
  }[];
}

const parse = (body: string) => JSON.parse(body) as ChatRequest;

describe("parallel tool calls", () => {
  it("runs two calls of one response together and commits their results in completion order", async () => {
    const scenario = await createScenario([
      chatToolCalls([
        { id: "call-1", name: "Read", args: ['{"path":"/one"}'] },
        { id: "call-2", name: "Read", args: ['{"path":"/two"}'] },
      ]),
      chatText(["both read"]),
    ]);
    const pending: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `two reads ${scenario.marker}` },
      {
        onExec: async (exec, r) => {
          pending.push(exec);
          if (pending.length < 2) return;
          // Answer in reverse order: the second call finishes first.
          await r.send(readSuccess(pending[1]!, "two"));
          await r.send(readSuccess(pending[0]!, "one"));
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(new Set(pending.map((e) => e.id)).size).toBe(2);

    const [, second] = await scenario.requests(2);
    const messages = parse(second!.body).messages;
    const assistant = messages.at(-3)!;
    expect(assistant.tool_calls?.map((c) => c.id)).toEqual(["call-1", "call-2"]);
    expect(messages.slice(-2).map((m) => m.tool_call_id)).toEqual(["call-2", "call-1"]);
  });
});
