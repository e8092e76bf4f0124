// The request context's MCP tools as tools of their own, through each provider:
// offered by name and schema, called, relayed as mcp_args, shown on an MCP card,
// and their result (text and image) in the next provider request.
import { fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import type { ExecServerMessage, InteractionQuery, McpArgs, ToolCall } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { createScenario } from "../../support/fake-provider.ts";
import { clientMessage, runRequest, startTurn } from "../../support/cursor-client.ts";
import { mcpSuccess } from "../../support/exec-replies.ts";
import { imagesIn, offeredTools, textResponse, toolCallResponse, toolResultText, WIRES } from "../../support/provider-bodies.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const PNG_URI = `data:image/png;base64,${btoa(String.fromCharCode(...PNG))}`;

const SEARCH_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: { q: { type: "string" }, labels: { type: "array" } },
  required: ["q"],
};
const OFFERED_SCHEMA = { type: "object", properties: { q: { type: "string" }, labels: { type: "array", items: {} } }, required: ["q"] };

const MCP_TOOLS = [
  {
    name: "github-search_issues",
    providerIdentifier: "github",
    toolName: "search_issues",
    description: "Search the issues of a repository.",
    inputSchema: fromJson(ValueSchema, SEARCH_SCHEMA),
  },
  { name: "docs-lookup", providerIdentifier: "docs server", toolName: "lookup", inputSchemaJson: '{"type":"object"}' },
];

describe.each(WIRES)("MCP tools of the request context through $wire", ({ wire, model }) => {
  it("offers each MCP tool after the built-in tools, relays its call as mcp_args and gives the model its text and image", async () => {
    const scenario = await createScenario([
      toolCallResponse(wire, { id: "call-mcp", name: "mcp__github__search_issues", args: ['{"q":', '"bug"}'] }),
      textResponse(wire, ["Found two."]),
    ]);
    const execs: ExecServerMessage[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `find bugs ${scenario.marker}`, model, mcpTools: MCP_TOOLS },
      {
        onExec: (exec, r) => {
          execs.push(exec);
          return r.send(
            mcpSuccess(exec, [
              { content: { case: "text", value: { text: "2 open issues" } } },
              { content: { case: "image", value: { data: PNG, mimeType: "image/jpeg" } } },
            ]),
          );
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("Found two.");

    const [first, second] = await scenario.requests(2);
    const tools = offeredTools(wire, first!.body);
    expect(tools.slice(-2).map((t) => t.name)).toEqual(["mcp__docs_server__lookup", "mcp__github__search_issues"]);
    expect(tools.slice(0, -2).every((t) => !t.name.startsWith("mcp__"))).toBe(true);
    expect(tools.at(-1)?.parameters).toEqual(OFFERED_SCHEMA);
    expect(tools.at(-2)?.parameters).toEqual({ type: "object", properties: {} });
    if (wire === "openai-responses") expect(tools.at(-1)?.strict).toBe(false);

    expect(execs).toHaveLength(1);
    expect(execs[0]!.message.case).toBe("mcpArgs");
    const args = execs[0]!.message.value as McpArgs;
    expect(args).toMatchObject({
      toolName: "search_issues",
      providerIdentifier: "github",
      serverIdentifier: "github",
      toolCallId: "call-mcp",
    });
    expect(args.args.q?.kind).toEqual({ case: "stringValue", value: "bug" });

    const started = reader.updates().find((u) => u.case === "toolCallStarted")?.value as { toolCall: ToolCall };
    expect(started.toolCall.tool.case).toBe("mcpToolCall");
    const completed = reader.updates().find((u) => u.case === "toolCallCompleted")?.value as { toolCall: ToolCall };
    expect(completed.toolCall.tool).toMatchObject({
      case: "mcpToolCall",
      value: { args: { toolName: "search_issues", providerIdentifier: "github" }, result: { result: { case: "success" } } },
    });

    expect(toolResultText(wire, second!.body, "call-mcp")).toBe("2 open issues");
    // The bytes say PNG, whatever the server declared.
    expect(imagesIn(wire, second!.body)).toEqual([PNG_URI]);
    expect(offeredTools(wire, second!.body)).toEqual(tools);
  });
});

describe("MCP tools across turns", () => {
  it("keeps the tool list byte-identical when the client lists the same tools in another order", async () => {
    const scenario = await createScenario([textResponse("openai-chat", ["one"]), textResponse("openai-chat", ["two"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `first ${scenario.marker}`, mcpTools: MCP_TOOLS });
    expect(await one.reader.end()).toEqual({});
    const two = await startTurn({ conversationId, text: "second", mcpTools: [...MCP_TOOLS].reverse() });
    expect(await two.reader.end()).toEqual({});
    const [a, b] = await scenario.requests(2);
    expect(JSON.stringify(JSON.parse(b!.body).tools)).toBe(JSON.stringify(JSON.parse(a!.body).tools));
  });
});

describe("MCP sign-in", () => {
  /** A run_request whose inline request context lists MCP tools and says whether the client can sign in to MCP servers. */
  function withMcpAuth(conversationId: string, text: string, supportsMcpAuth: boolean) {
    const message = runRequest({ conversationId, text, mcpTools: MCP_TOOLS });
    if (message.message.case !== "runRequest" || message.message.value.action?.action.case !== "userMessageAction")
      throw new Error("unreachable");
    message.message.value.action.action.value.requestContext!.supportsMcpAuth = supportsMcpAuth;
    return message;
  }

  it("offers McpAuth only to a client that supports it, and relays the sign-in to the user as an interaction", async () => {
    const scenario = await createScenario([
      textResponse("openai-chat", ["no sign-in here"]),
      toolCallResponse("openai-chat", { id: "call-auth", name: "McpAuth", args: ['{"server":"github"}'] }),
      textResponse("openai-chat", ["Signed in."]),
    ]);
    const without = await startTurn({
      conversationId: "",
      text: "",
      message: withMcpAuth(crypto.randomUUID(), `a ${scenario.marker}`, false),
    });
    expect(await without.reader.end()).toEqual({});

    const queries: InteractionQuery[] = [];
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn(
      { conversationId: "", text: "", message: withMcpAuth(conversationId, `b ${scenario.marker}`, true) },
      {
        onInteraction: (query, r) => {
          queries.push(query);
          return r.send(
            clientMessage({
              message: {
                case: "interactionResponse",
                value: { id: query.id, result: { case: "mcpAuthRequestResponse", value: { result: { case: "approved", value: {} } } } },
              },
            }),
          );
        },
      },
    );
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("Signed in.");

    const [first, second, third] = await scenario.requests(3);
    expect(offeredTools("openai-chat", first!.body).map((t) => t.name)).not.toContain("McpAuth");
    const offered = offeredTools("openai-chat", second!.body).map((t) => t.name);
    // After the built-in tools it follows, before the context's own MCP tools.
    expect(offered.slice(-3)).toEqual(["McpAuth", "mcp__docs_server__lookup", "mcp__github__search_issues"]);
    expect(queries.map((q) => q.query)).toEqual([
      expect.objectContaining({
        case: "mcpAuthRequestQuery",
        value: expect.objectContaining({ args: expect.objectContaining({ serverIdentifier: "github", toolCallId: "call-auth" }) }),
      }),
    ]);
    expect(toolResultText("openai-chat", third!.body, "call-auth")).toBe(
      "The user signed in to the MCP server github. Call its tools again.",
    );
  });
});
