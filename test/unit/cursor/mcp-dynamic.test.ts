// The request context's MCP tools as model tools: names, order, definitions and argument parsing.
import { create, fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { mcpDynamicTools } from "../../../src/cursor/tools/mcp-dynamic.ts";
import { AGENT_TOOLS } from "../../../src/cursor/tools/index.ts";
import type { Tool } from "../../../src/cursor/tools/tool-types.ts";
import { McpToolDefinitionSchema, type McpToolDefinition } from "../../../src/proto/gen/agent/v1/agent_pb.ts";

const NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name of the tool that relays to `server`. */
function nameFor(tools: readonly Tool[], server: string): string | undefined {
  return tools.find((t) => {
    const parsed = t.parse("{}");
    return parsed.ok && (parsed.args as { server: string }).server === server;
  })?.name;
}

function definition(server: string, tool: string, extra: Partial<Omit<McpToolDefinition, "$typeName">> = {}): McpToolDefinition {
  return create(McpToolDefinitionSchema, { name: `${server}-${tool}`, providerIdentifier: server, toolName: tool, ...extra });
}

describe("mcpDynamicTools", () => {
  it("names each tool mcp__<server>__<tool> and describes it with the server's description and schema", () => {
    const [tool] = mcpDynamicTools([
      definition("github", "search_issues", {
        description: "Search issues.",
        inputSchema: fromJson(ValueSchema, { type: "object", properties: { q: { type: "string" } }, required: ["q"] }),
      }),
    ]);
    expect(tool?.name).toBe("mcp__github__search_issues");
    expect(tool?.definition).toEqual({
      name: "mcp__github__search_issues",
      description: "Search issues.",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    });
  });

  it("reads the schema from input_schema_json when input_schema is absent, and offers an open object for invalid JSON", () => {
    const [fromJsonText, broken] = mcpDynamicTools([
      definition("a", "one", { inputSchemaJson: '{"type":"object","properties":{"n":{"type":"array"}}}' }),
      definition("a", "two", { inputSchemaJson: "{not json" }),
    ]);
    expect(fromJsonText?.definition.parameters).toEqual({ type: "object", properties: { n: { type: "array", items: {} } } });
    expect(broken?.definition.parameters).toEqual({ type: "object", properties: {} });
    expect(broken?.definition.description).toBe("The tool two of the MCP server a.");
  });

  it("makes names provider-safe: invalid characters replaced, long names cut with a hash, all of them unique", () => {
    const tools = mcpDynamicTools([
      definition("my server", "do.it"),
      definition("my_server", "do_it"),
      definition("s".repeat(40), "t".repeat(40)),
      definition("s".repeat(40), `${"t".repeat(40)}x`),
    ]);
    const names = tools.map((t) => t.name);
    for (const name of names) expect(name).toMatch(NAME_RULE);
    expect(new Set(names).size).toBe(4);
    expect(names).toContain("mcp__my_server__do_it");
    expect(names.filter((n) => n.startsWith("mcp__my_server__do_it"))).toHaveLength(2);
  });

  it("renames no tool whose identifiers need no cleaning when a tool that cleans to the same name and sorts earlier is added", () => {
    const clean = definition("my_server", "do_it");
    expect(mcpDynamicTools([clean]).map((t) => t.name)).toEqual(["mcp__my_server__do_it"]);
    // "my server" sorts before "my_server" and cleans to the same name.
    const names = mcpDynamicTools([clean, definition("my server", "do_it")]).map((t) => t.name);
    expect(names[1]).toBe("mcp__my_server__do_it");
    expect(names[0]).toMatch(/^mcp__my_server__do_it_[0-9a-f]{8}$/);
  });

  it("names each tool of a collision group by its own identifiers, whichever others it collides with", () => {
    const dotted = definition("x.y", "t");
    const withSpaced = mcpDynamicTools([dotted, definition("x y", "t")]); // "x y" sorts before "x.y"
    const withTilde = mcpDynamicTools([dotted, definition("x~y", "t")]); // "x~y" sorts after it
    expect(nameFor(withSpaced, "x.y")).toMatch(/^mcp__x_y__t_[0-9a-f]{8}$/);
    expect(nameFor(withSpaced, "x.y")).toBe(nameFor(withTilde, "x.y"));
    expect(nameFor(withSpaced, "x y")).not.toBe(nameFor(withSpaced, "x.y"));
  });

  it("gives the same tools in the same order and bytes whatever order the client lists them in", () => {
    const defs = [definition("zeta", "b"), definition("alpha", "z"), definition("alpha", "a"), definition("my server", "x")];
    const one = mcpDynamicTools(defs);
    const two = mcpDynamicTools([...defs].reverse());
    expect(one.map((t) => t.name)).toEqual(["mcp__alpha__a", "mcp__alpha__z", "mcp__my_server__x", "mcp__zeta__b"]);
    expect(JSON.stringify(two.map((t) => t.definition))).toBe(JSON.stringify(one.map((t) => t.definition)));
  });

  it("offers a server's tool listed twice once, and skips definitions without a server or a tool", () => {
    const tools = mcpDynamicTools([
      definition("s", "t"),
      definition("s", "t"),
      definition("", "t"),
      create(McpToolDefinitionSchema, { providerIdentifier: "s" }),
    ]);
    expect(tools.map((t) => t.name)).toEqual(["mcp__s__t"]);
  });

  it("falls back to the definition's name when tool_name is empty", () => {
    const [tool] = mcpDynamicTools([create(McpToolDefinitionSchema, { name: "lookup", providerIdentifier: "docs" })]);
    expect(tool?.name).toBe("mcp__docs__lookup");
  });

  it("never shadows a built-in tool", () => {
    const builtIn = new Set(AGENT_TOOLS.map((t) => t.name));
    const tools = mcpDynamicTools(AGENT_TOOLS.map((t) => definition(t.name, t.name)));
    for (const tool of tools) expect(builtIn.has(tool.name)).toBe(false);
  });

  it("parses the model's arguments as a JSON object for the server's tool, and refuses anything else", () => {
    const [tool] = mcpDynamicTools([definition("github", "search")]);
    expect(tool?.parse('{"q":"bug","n":2}')).toEqual({
      ok: true,
      args: { server: "github", toolName: "search", arguments: { q: "bug", n: 2 } },
    });
    expect(tool?.parse("")).toEqual({ ok: true, args: { server: "github", toolName: "search", arguments: {} } });
    const refused = tool?.parse("[1]");
    expect(refused?.ok).toBe(false);
    expect(refused).toMatchObject({ error: expect.stringContaining("mcp__github__search") });
  });

  it("shows the call on an MCP card naming the server and the tool", () => {
    const [tool] = mcpDynamicTools([definition("github", "search")]);
    const parsed = tool!.parse('{"q":"bug"}');
    if (!parsed.ok) throw new Error(parsed.error);
    const card = tool!.startedCard(parsed.args, "call-1");
    expect(card.tool.case).toBe("mcpToolCall");
    expect(card.tool.value).toMatchObject({
      args: { toolName: "search", providerIdentifier: "github", serverIdentifier: "github", toolCallId: "call-1" },
    });
    expect(tool!.emptyCard().tool.case).toBe("mcpToolCall");
  });
});
