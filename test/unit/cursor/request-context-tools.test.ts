// The tools a run offers under the client's request context: switched-off tools
// are left out, opt-in ones (McpAuth) offered only when asked for; custom subagents extend Task;
// otherwise every byte stays.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { RequestContextSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { toolsForContext } from "../../../src/cursor/context/context-tools.ts";
import { AGENT_TOOLS, SUBAGENT_TOOLS } from "../../../src/cursor/tools/index.ts";

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);
/** What a client that does not say it supports MCP sign-in is offered: every agent tool but McpAuth. */
const WITHOUT_MCP_AUTH = AGENT_TOOLS.filter((t) => t.name !== "McpAuth");
const definitions = (tools: readonly { definition: unknown }[]) => JSON.stringify(tools.map((t) => t.definition));

describe("toolsForContext", () => {
  it("leaves out WebSearch, WebFetch and ReadLints when the client switched them off, keeping the order of the rest", () => {
    const context = create(RequestContextSchema, { webSearchEnabled: false, webFetchEnabled: false, readLintsEnabled: false });
    const offered = toolsForContext(AGENT_TOOLS, context);
    expect(names(offered)).toEqual(names(WITHOUT_MCP_AUTH).filter((n) => !["WebSearch", "WebFetch", "ReadLints"].includes(n)));
    expect(names(toolsForContext(AGENT_TOOLS, create(RequestContextSchema, { webFetchEnabled: false })))).not.toContain("WebFetch");
  });

  it("keeps every definition byte for byte when nothing is switched off and there are no custom subagents", () => {
    const context = create(RequestContextSchema, { webSearchEnabled: true, env: { shell: "zsh" } });
    expect(definitions(toolsForContext(AGENT_TOOLS, context))).toBe(definitions(WITHOUT_MCP_AUTH));
    expect(definitions(toolsForContext(AGENT_TOOLS, undefined))).toBe(definitions(WITHOUT_MCP_AUTH));
  });

  it("offers McpAuth, last of the built-in tools, only to a client that says it supports MCP sign-in, and never to a subagent", () => {
    const supports = create(RequestContextSchema, { supportsMcpAuth: true });
    expect(names(toolsForContext(AGENT_TOOLS, supports))).toEqual(names(AGENT_TOOLS));
    expect(names(toolsForContext(AGENT_TOOLS, supports)).at(-1)).toBe("McpAuth");
    expect(names(toolsForContext(AGENT_TOOLS, create(RequestContextSchema, { supportsMcpAuth: false })))).not.toContain("McpAuth");
    expect(names(toolsForContext(SUBAGENT_TOOLS, supports))).not.toContain("McpAuth");
  });

  it("offers custom subagents as Task subagent types, in the subagent_type description only", () => {
    const context = create(RequestContextSchema, {
      customSubagents: [{ name: "reviewer", description: "Reviews a diff for bugs" }, { name: "" }],
    });
    const task = toolsForContext(AGENT_TOOLS, context).find((t) => t.name === "Task")!;
    const original = AGENT_TOOLS.find((t) => t.name === "Task")!;
    const description = (task.definition.parameters as { properties: { subagent_type: { description: string } } }).properties.subagent_type
      .description;
    expect(description).toContain('"reviewer" (Reviews a diff for bugs)');
    expect(task.definition.description).toBe(original.definition.description);
    expect(JSON.stringify({ ...task.definition.parameters, properties: {} })).toBe(
      JSON.stringify({ ...original.definition.parameters, properties: {} }),
    );
    // A subagent's tool set has no Task, and gains none.
    expect(names(toolsForContext(SUBAGENT_TOOLS, context))).toEqual(names(SUBAGENT_TOOLS));
  });

  it("describes custom subagents in the same bytes whatever order the client lists them in", () => {
    const reviewer = { name: "reviewer", description: "Reviews a diff" };
    const writer = { name: "docs-writer", description: "Writes docs" };
    const taskOf = (customSubagents: (typeof reviewer)[]) =>
      toolsForContext(AGENT_TOOLS, create(RequestContextSchema, { customSubagents })).find((t) => t.name === "Task")!;
    const one = taskOf([reviewer, writer]);
    expect(JSON.stringify(taskOf([writer, reviewer]).definition)).toBe(JSON.stringify(one.definition));
    const description = (one.definition.parameters as { properties: { subagent_type: { description: string } } }).properties.subagent_type
      .description;
    expect(description).toContain('"docs-writer" (Writes docs); "reviewer" (Reviews a diff)');
  });
});
