// The tool list the model sees: prompt/tools.json (imported as JSON through the
// bundler), its agreement with the implemented tools, its byte-stable order,
// and argument validation messages.
import { describe, expect, it } from "vitest";
import tools from "../../../prompt/tools.json";
import { AGENT_TOOLS, SUBAGENT_TOOLS } from "../../../src/cursor/tools/index.ts";
import type { Tool } from "../../../src/cursor/tools/tool-types.ts";

/** What a run sends the model: each tool's definition, in the set's order. */
const definitionsOf = (set: readonly Tool[]) => set.map((tool) => tool.definition);
const toolNamed = (name: string) => AGENT_TOOLS.find((tool) => tool.name === name)!;

describe("prompt/tools.json", () => {
  it("names the tools of AGENT_TOOLS in the same order", () => {
    expect(tools.map((t) => t.name)).toEqual(AGENT_TOOLS.map((t) => t.name));
  });

  it("gives every tool a description and an object schema whose required fields exist", () => {
    for (const definition of definitionsOf(AGENT_TOOLS)) {
      expect(definition.description.length, definition.name).toBeGreaterThan(20);
      const parameters = definition.parameters;
      expect(parameters.type, definition.name).toBe("object");
      expect(parameters.additionalProperties, definition.name).toBe(false);
      const properties = parameters.properties;
      expect(typeof properties === "object" && properties !== null, definition.name).toBe(true);
      const names = Object.keys(properties as object);
      const required = (parameters.required ?? []) as unknown[];
      expect(Array.isArray(required)).toBe(true);
      for (const field of required) expect(names, `${definition.name}.${String(field)}`).toContain(field);
    }
  });

  it("is what each tool exposes as its definition", () => {
    for (const tool of AGENT_TOOLS) expect(tool.definition).toEqual(tools.find((t) => t.name === tool.name));
  });
});

describe("the definitions a run sends", () => {
  it("keep the file's order and bytes for both tool sets", () => {
    expect(JSON.stringify(definitionsOf(AGENT_TOOLS))).toBe(JSON.stringify(tools));
    const subagentNames = new Set(SUBAGENT_TOOLS.map((t) => t.name));
    expect(JSON.stringify(definitionsOf(SUBAGENT_TOOLS))).toBe(JSON.stringify(tools.filter((t) => subagentNames.has(t.name))));
  });

  it("cannot be changed by a caller, so the cached prefix cannot drift", () => {
    const [first] = definitionsOf(AGENT_TOOLS);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.parameters)).toBe(true);
  });
});

describe("tool sets", () => {
  it("gives subagents every agent tool except AskQuestion, SwitchMode, CreatePlan, Task and McpAuth", () => {
    const removed = AGENT_TOOLS.map((t) => t.name).filter((name) => !SUBAGENT_TOOLS.some((t) => t.name === name));
    expect(removed).toEqual(["Task", "AskQuestion", "SwitchMode", "CreatePlan", "McpAuth"]);
  });

  it("gives every tool an empty card and a started card of the same kind", () => {
    const samples: Record<string, Record<string, unknown>> = {
      Shell: { command: "ls" },
      Read: { path: "/a" },
      Write: { path: "/a", contents: "" },
      StrReplace: { path: "/a", old_string: "x", new_string: "y" },
      Delete: { path: "/a" },
      Grep: { pattern: "x" },
      Glob: { glob_pattern: "*" },
      ReadLints: {},
      TodoWrite: { todos: [], merge: true },
      Task: { description: "d", prompt: "p" },
      AskQuestion: { questions: [{ id: "q", prompt: "?", options: [{ id: "a", label: "A" }] }] },
      SwitchMode: { target_mode_id: "plan" },
      CreatePlan: { plan: "# Plan" },
      WebSearch: { search_term: "x" },
      WebFetch: { url: "https://example.com" },
      CallMcpTool: { server: "s", toolName: "t" },
      GetMcpTools: {},
      FetchMcpResource: { server: "s", uri: "u" },
      McpAuth: { server: "s" },
    };
    for (const tool of AGENT_TOOLS) {
      const parsed = tool.parse(JSON.stringify(samples[tool.name]));
      expect(parsed.ok, tool.name).toBe(true);
      if (!parsed.ok) continue;
      const kind = tool.emptyCard().tool.case;
      expect(kind, tool.name).toBeDefined();
      expect(tool.startedCard(parsed.args, "call-1").tool.case, tool.name).toBe(kind);
    }
  });
});

describe("argument parsing", () => {
  const read = toolNamed("Read");

  it("turns invalid JSON into an error message for the model", () => {
    const parsed = read.parse("{not json");
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/^Invalid arguments for Read: not valid JSON/);
  });

  it("names a missing required argument", () => {
    const parsed = read.parse("{}");
    expect(parsed).toEqual({ ok: false, error: 'Invalid arguments for Read: missing required argument "path".' });
  });

  it("accepts common aliases, nulls for absent fields and numbers written as strings", () => {
    expect(read.parse(JSON.stringify({ file_path: "/a", offset: null, limit: "20" }))).toEqual({
      ok: true,
      args: { path: "/a", offset: undefined, limit: 20 },
    });
  });

  it("rejects a StrReplace that would change nothing", () => {
    const parsed = toolNamed("StrReplace").parse(JSON.stringify({ path: "/a", old_string: "x", new_string: "x" }));
    expect(!parsed.ok && parsed.error).toContain("identical");
  });

  it("treats empty arguments as an empty object", () => {
    expect(toolNamed("GetMcpTools").parse("")).toEqual({ ok: true, args: { server: undefined } });
  });
});
