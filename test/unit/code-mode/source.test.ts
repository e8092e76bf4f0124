// How a cell's source becomes the module exec_main.mjs (docs/code-mode.md#cell-source):
// imports refused with Codex's text, exports and dynamic imports rewritten without
// moving any position, syntax errors left for V8 to word.
import { describe, expect, it } from "vitest";
import { analyseSource, FIRST_LINE_OFFSET, syntaxErrorFromStartFailure } from "../../../src/code-mode/engine/cell-source.ts";
import { toolIdentifier } from "../../../src/code-mode/engine/tool-names.ts";

function body(source: string): string {
  const analysis = analyseSource(source);
  if (analysis.kind !== "module") throw new Error(`not a module: ${analysis.kind}`);
  return analysis.text.slice(FIRST_LINE_OFFSET, -"\n}\n".length);
}

describe("analyseSource", () => {
  it("wraps the source in an async function on the same first line", () => {
    const analysis = analyseSource(`text("a")\nawait x`);
    expect(analysis).toEqual({ kind: "module", text: `export default async (__imp_) => {text("a")\nawait x\n}\n` });
  });

  it("refuses the first static import or re-export with Codex's text", () => {
    expect(analyseSource(`const a = 1;\nimport b from "./b.js"; import c from "c"`)).toEqual({
      kind: "refused",
      errorText: "Unsupported import in exec: ./b.js",
    });
    expect(analyseSource(`export * from "x"`)).toEqual({ kind: "refused", errorText: "Unsupported import in exec: x" });
    expect(analyseSource(`export { a } from "y"`)).toEqual({ kind: "refused", errorText: "Unsupported import in exec: y" });
  });

  it("replaces the keyword of a dynamic import with a function of the same length", () => {
    expect(body(`await import("x"); f(() => import(y))`)).toBe(`await __imp_("x"); f(() => __imp_(y))`);
    expect(body(`text(import.meta.url)`)).toBe(`text(import.meta.url)`);
  });

  it("drops export keywords, keeping declarations, lengths and line breaks", () => {
    expect(body(`export const a = 1;`)).toBe(`       const a = 1;`);
    expect(body(`const a = 1; export { a };`)).toBe(`const a = 1; ${" ".repeat("export { a };".length)}`);
    expect(body(`export default function named() {}`)).toBe(`               function named() {}`);
    expect(body(`export default function () {}`)).toBe(`void           function () {}`);
    expect(body(`export default 5`)).toBe(`void           5`);
    expect(body(`export\ndefault 5`)).toBe(`void  \n        5`);
  });

  it("turns a hashbang line into a comment", () => {
    expect(body(`#!/usr/bin/env node\ntext(1)`)).toBe(`///usr/bin/env node\ntext(1)`);
  });

  it("leaves syntax errors to V8, with acorn's wording as the fallback", () => {
    expect(analyseSource(`x = ;`)).toEqual({ kind: "syntax-error", fallbackText: "SyntaxError: Unexpected token" });
    expect(analyseSource(`return 5`).kind).toBe("syntax-error");
    expect(analyseSource(`let x = 1\nlet x = 2`).kind).toBe("syntax-error");
  });
});

describe("syntaxErrorFromStartFailure", () => {
  it("takes V8's message out of the Worker Loader's start failure", () => {
    expect(syntaxErrorFromStartFailure("Failed to start Worker:\nUncaught SyntaxError: Unexpected token ';'\n  at probe.js:1:12")).toBe(
      "SyntaxError: Unexpected token ';'",
    );
    expect(syntaxErrorFromStartFailure("Failed to start Worker:\nUncaught SyntaxError: Illegal return statement\n  at probe.js:1")).toBe(
      "SyntaxError: Illegal return statement",
    );
    expect(syntaxErrorFromStartFailure("Failed to start Worker:\nUncaught 0")).toBeUndefined();
  });
});

describe("toolIdentifier", () => {
  it("replaces what cannot be part of a JS identifier with _", () => {
    expect(["echo", "my-tool.x", "1st", "a1", "über", "$ok", "a b"].map(toolIdentifier)).toEqual([
      "echo",
      "my_tool_x",
      "_st",
      "a1",
      "_ber",
      "$ok",
      "a_b",
    ]);
  });
});
