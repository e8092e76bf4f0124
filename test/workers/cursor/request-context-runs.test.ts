// The request context across runs (docs/request-context.md): a run whose action
// carries none keeps the conversation's last one (its tools, its MCP tools, its
// custom subagents), and context asks of one run do not disturb each other.
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { CustomSubagentSchema, RequestContextRulesPartSchema, type ExecServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { appendOk, clientMessage, runRequest, startTurn } from "../../support/cursor-client.ts";
import { mcpSuccess, requestContextSuccess } from "../../support/exec-replies.ts";
import { deferred } from "../../support/deferred.ts";
import { messagesPrefix, toolsJson } from "../../support/prefix.ts";
import { toolResultText } from "../../support/provider-bodies.ts";

type Message = { role: string; content: string };
type ToolJson = { function: { name: string; parameters: { properties: Record<string, { description: string }> } } };
const toolsOf = (body: string) => (JSON.parse(body) as { tools?: ToolJson[] }).tools ?? [];

const MCP_TOOLS = [{ name: "github-search", providerIdentifier: "github", toolName: "search", inputSchemaJson: '{"type":"object"}' }];
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

/** A user message's run_request whose inline request context switches WebFetch off and brings an MCP tool and a custom subagent. */
function withWorkspaceContext(conversationId: string, text: string) {
  const message = runRequest({ conversationId, text, mcpTools: MCP_TOOLS });
  if (message.message.case !== "runRequest" || message.message.value.action?.action.case !== "userMessageAction") {
    throw new Error("unreachable");
  }
  const context = message.message.value.action.action.value.requestContext!;
  context.webFetchEnabled = false;
  context.customSubagents = [create(CustomSubagentSchema, { name: "reviewer", description: "Reviews diffs" })];
  return message;
}

const cancel = () => clientMessage({ message: { case: "conversationAction", value: { action: { case: "cancelAction", value: {} } } } });

describe("request context across runs", () => {
  it("keeps the last request context's tools, MCP tools and custom subagents for a later turn that sends no context", async () => {
    const scenario = await createScenario([chatText(["one"]), chatText(["two"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({
      conversationId: "",
      text: "",
      message: withWorkspaceContext(conversationId, `first ${scenario.marker}`),
    });
    expect(await one.reader.end()).toEqual({});
    const two = await startTurn({ conversationId, text: "second, without a context" });
    expect(await two.reader.end()).toEqual({});

    const [first, second] = await scenario.requests(2);
    const names = toolsOf(second!.body).map((t) => t.function.name);
    expect(names).not.toContain("WebFetch");
    expect(names).toContain("mcp__github__search");
    const task = toolsOf(second!.body).find((t) => t.function.name === "Task")!;
    expect(task.function.parameters.properties.subagent_type!.description).toContain('"reviewer" (Reviews diffs)');
    expect(toolsJson(second!.body)).toBe(toolsJson(first!.body));
    expect(second!.body.startsWith(messagesPrefix(first!.body))).toBe(true);
  });

  it("runs an MCP call left pending by a cancelled turn when the resume sends no context", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "call-mcp", name: "mcp__github__search", args: ['{"q":"bug"}'] }]),
      chatText(["found it"]),
    ]);
    const conversationId = crypto.randomUUID();
    const opened = deferred<ExecServerMessage>();
    const first = await startTurn(
      { conversationId: "", text: "", message: withWorkspaceContext(conversationId, `search ${scenario.marker}`) },
      { onExec: (exec) => opened.resolve(exec) },
    );
    expect((await opened.promise).message.case).toBe("mcpArgs");
    await first.reader.send(cancel());
    expect((await first.reader.end()).error?.code).toBe("canceled");

    const resume = clientMessage({
      message: {
        case: "runRequest",
        value: { conversationId, requestedModel: { modelId: "fake-model" }, action: { action: { case: "resumeAction", value: {} } } },
      },
    });
    const execs: ExecServerMessage[] = [];
    const second = await startTurn(
      { conversationId: "", text: "", message: resume },
      {
        onExec: (exec, r) => {
          execs.push(exec);
          return r.send(mcpSuccess(exec, [{ content: { case: "text", value: { text: "1 open issue" } } }]));
        },
      },
    );
    expect(await second.reader.end()).toEqual({});
    expect(execs.map((e) => e.message.case)).toEqual(["mcpArgs"]);
    const [, request] = await scenario.requests(2);
    expect(toolResultText("openai-chat", request!.body, "call-mcp")).toBe("1 open issue");
  });

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
