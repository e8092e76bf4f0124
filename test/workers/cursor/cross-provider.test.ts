// The same scripted conversation through each wire API yields the same
// normalised events, the same tool round and the same Cursor updates.
import { describe, expect, it } from "vitest";
import type { ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, chatToolCalls, createScenario, type ScriptedResponse } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { readSuccess } from "../../support/exec-replies.ts";
import { responsesStream } from "../../fixtures/openai-responses/stream.ts";
import { anthropicStream } from "../../fixtures/anthropic/stream.ts";

const ARGS = ['{"path":', '"/src/a.ts"}'];

const scripts: Record<string, () => ScriptedResponse[]> = {
  "fake-model": () => [chatToolCalls([{ id: "call-1", name: "Read", args: ARGS }]), chatText(["The file ", "exports a."])],
  "fake-responses": () => [
    responsesStream().created().functionCall({ callId: "call-1", name: "Read", args: ARGS }).completed().response(),
    responsesStream().created().message(["The file ", "exports a."]).completed().response(),
  ],
  "fake-anthropic": () => [
    anthropicStream({ toolUses: [{ id: "call-1", name: "Read", input: ARGS }] }),
    anthropicStream({ text: ["The file ", "exports a."] }),
  ],
};

async function runConversation(model: string) {
  const scenario = await createScenario(scripts[model]!());
  const execs: ExecServerMessage[] = [];
  const { reader } = await startTurn(
    { conversationId: crypto.randomUUID(), text: `read a.ts ${scenario.marker}`, model },
    {
      onExec: (exec, r) => {
        execs.push(exec);
        return r.send(readSuccess(exec, "export const a = 1;"));
      },
    },
  );
  const end = await reader.end();
  const kinds = reader
    .kinds()
    .filter((k) => !["heartbeat", "kvServerMessage"].includes(k))
    // Argument streaming granularity is the provider's; the cards around it are ours.
    .filter((k, i, all) => !(k === "partialToolCall" && all[i - 1] === "partialToolCall"));
  return { end, kinds, text: reader.text(), execs: execs.map((e) => ({ case: e.message.case, value: e.message.value })) };
}

describe("the same conversation across providers", () => {
  it("yields the same tool round, updates and answer through Chat Completions, Responses and Anthropic Messages", async () => {
    const results = await Promise.all(Object.keys(scripts).map(runConversation));
    for (const result of results) {
      expect(result.end).toEqual({});
      expect(result.text).toBe("The file exports a.");
      expect(result.execs).toHaveLength(1);
      expect(result.execs[0]?.case).toBe("readArgs");
      expect(result.execs[0]?.value).toMatchObject({ path: "/src/a.ts", toolCallId: "call-1" });
    }
    expect(results[1]!.kinds).toEqual(results[0]!.kinds);
    expect(results[2]!.kinds).toEqual(results[0]!.kinds);
  });
});
