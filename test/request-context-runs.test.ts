// The request context across runs (docs/request-context.md): a run whose action
// carries none keeps the conversation's last one (its tools, its MCP tools, its
// custom subagents), and context asks of one run do not disturb each other.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { RequestContextRulesPartSchema, type ExecServerMessage } from "../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, createScenario } from "./support/fake-provider.ts";
import { appendOk, clientMessage, startTurn } from "./support/cursor-client.ts";
import { requestContextSuccess } from "./support/exec-replies.ts";

type Message = { role: string; content: string };
const messagesOf = (body: string) => (JSON.parse(body) as { messages: Message[] }).messages;
const globalRule = (fullPath: string, content: string) => ({ fullPath, content, type: { type: { case: "global" as const, value: {} } } });

/** A runtime user message whose request context is a rules part by reference. */
async function userMessageWithRulesPart(text: string, messageId: string, cloudRule: string) {
  const data = toBinary(RequestContextRulesPartSchema, create(RequestContextRulesPartSchema, { cloudRule }));
  const rulesBlobId = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return clientMessage({
    message: {
      case: "conversationAction",
      value: {
        action: { case: "userMessageAction", value: { userMessage: { text, messageId, mode: 1 } } },
        requestContextParts: { rulesBlobId, rulesByteLength: data.byteLength },
      },
    },
  });
}

describe("request context across runs", () => {
  it("answers two request_context_args of one run that are open at once, each with its own reply", async () => {
    const scenario = await createScenario([chatText(["one"]), chatText(["two"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `first ${scenario.marker}` });
    expect(await one.reader.end()).toEqual({});
    // Both arrive after the turn ended, so the next run takes them together; the client no longer holds their blobs.
    await appendOk(one.requestId, "next", await userMessageWithRulesPart("late one", "late-1", "stale one"));
    await appendOk(one.requestId, "next", await userMessageWithRulesPart("late two", "late-2", "stale two"));

    const asks: ExecServerMessage[] = [];
    const two = await startTurn(
      { conversationId, text: "second" },
      {
        onExec: async (exec, reader) => {
          if (exec.message.case !== "requestContextArgs") return;
          asks.push(exec);
          if (asks.length < 2) return;
          // The first answer lands before the second is sent.
          await reader.send(requestContextSuccess(asks[0]!, { rules: [globalRule("/w/a.mdc", "Rule A.")] }));
          await reader.send(requestContextSuccess(asks[1]!, { rules: [globalRule("/w/b.mdc", "Rule B.")] }));
        },
      },
    );
    expect(await two.reader.end()).toEqual({});
    expect(asks).toHaveLength(2);
    const [, request] = await scenario.requests(2);
    const contents = messagesOf(request!.body).map((m) => m.content);
    expect(contents.filter((c) => c === "late one" || c === "late two")).toEqual(["late one", "late two"]);
    expect(contents.filter((c) => c.startsWith("<request_context>"))).toHaveLength(2);
  });
});
