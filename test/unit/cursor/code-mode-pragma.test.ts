// exec's input: the optional `// @exec:` first line, refused with Codex's texts.
import { describe, expect, it } from "vitest";
import { parseExecSource } from "../../../src/cursor/code-mode/pragma.ts";
import { normalizeIdentifier, toolDeclarations } from "../../../src/cursor/code-mode/declarations.ts";

const error = (input: string) => {
  const parsed = parseExecSource(input);
  return parsed.ok ? undefined : parsed.error;
};

describe("parseExecSource", () => {
  it("takes a program without a pragma as it is", () => {
    expect(parseExecSource('text("hi")\n')).toEqual({ ok: true, value: { code: 'text("hi")\n' } });
  });

  it("reads both options and runs the lines after the pragma", () => {
    expect(parseExecSource('  // @exec: {"yield_time_ms": 250, "max_output_tokens": 40}\ntext(1)\ntext(2)')).toEqual({
      ok: true,
      value: { code: "text(1)\ntext(2)", yieldTimeMs: 250, maxOutputTokens: 40 },
    });
    expect(parseExecSource('// @exec: {"yield_time_ms": null}\ntext(1)')).toEqual({ ok: true, value: { code: "text(1)" } });
  });

  it("refuses empty input and a pragma with no program after it", () => {
    expect(error("  \n ")).toBe(
      'exec expects raw JavaScript source text (non-empty). Provide JS only, optionally with first-line `// @exec: {"yield_time_ms": 10000, "max_output_tokens": 1000}`.',
    );
    expect(error('// @exec: {"yield_time_ms": 1}')).toBe("exec pragma must be followed by JavaScript source on subsequent lines");
    expect(error('// @exec: {"yield_time_ms": 1}\n   \n')).toBe("exec pragma must be followed by JavaScript source on subsequent lines");
  });

  it("refuses a pragma that is not a JSON object of the two fields", () => {
    const notObject = "exec pragma must be a JSON object with supported fields `yield_time_ms` and `max_output_tokens`";
    expect(error("// @exec:\ntext(1)")).toBe(notObject);
    expect(error("// @exec: [1]\ntext(1)")).toBe(notObject);
    expect(error("// @exec: {nope\ntext(1)")).toMatch(
      /^exec pragma must be valid JSON with supported fields `yield_time_ms` and `max_output_tokens`: /,
    );
    expect(error('// @exec: {"zeta": 1, "alpha": 2}\ntext(1)')).toBe(
      "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `alpha`",
    );
  });

  it("refuses values that are not non-negative safe integers", () => {
    expect(error('// @exec: {"yield_time_ms": -1}\ntext(1)')).toMatch(
      /^exec pragma fields `yield_time_ms` and `max_output_tokens` must be non-negative safe integers: /,
    );
    expect(error('// @exec: {"max_output_tokens": "10"}\ntext(1)')).toMatch(/must be non-negative safe integers/);
    expect(error('// @exec: {"yield_time_ms": 9007199254740993}\ntext(1)')).toBe(
      "exec pragma field `yield_time_ms` must be a non-negative safe integer",
    );
  });
});

describe("toolDeclarations", () => {
  it("declares each tool with its argument type and a one-sentence summary, in the given order", () => {
    const declared = toolDeclarations([
      {
        name: "Read",
        description: "Read a file. It has more text.",
        parameters: {
          type: "object",
          properties: { path: { type: "string" }, limit: { type: "integer" }, mode: { enum: ["a", "b"] } },
          required: ["path"],
        },
        images: true,
      },
      { name: "mcp__my-server__do", description: "", parameters: { type: "object", properties: {} }, images: false },
    ]);
    expect(declared).toBe(
      [
        "declare const tools: {",
        "  /** Read a file. */",
        '  Read(args: { path: string; limit?: number; mode?: "a" | "b" }): Promise<string | ToolImages>;',
        "  mcp__my_server__do(args: Record<string, unknown>): Promise<string>;",
        "};",
        "type ToolImages = { text: string; images: { image_url: string }[] };",
      ].join("\n"),
    );
  });

  it("normalizes names to identifiers as Codex does", () => {
    expect(["Read", "9lives", "a-b.c", ""].map(normalizeIdentifier)).toEqual(["Read", "_lives", "a_b_c", "_"]);
  });
});
