// The JavaScript a cell runs in (docs/code-mode.md#differential-suite; code-mode
// §6.24–28 and §7 "Dynamic import", "Truncation").
import { expect, it } from "vitest";
import { completed, failed, observed, text } from "../support/outcomes.ts";
import { describeTargets } from "../support/scenario.ts";
import { CODEX_GLOBALS } from "../../support/codex-globals.ts";

/** `Object.keys(globalThis)` in a reference cell, sorted. */
const PNG = "data:image/png;base64,iVBORw0KGgo=";

describeTargets("the cell runtime", ({ target, open, execute }) => {
  const run = async (source: string) => observed(await execute(await open(), source).outcome());

  it("refuses a static import with the module's name", async () => {
    expect(await run(`import fs from "node:fs";\ntext("never");`)).toEqual(failed("1", "Unsupported import in exec: node:fs"));
  });

  it("refuses a dynamic import, as a rejection the cell can catch", async () => {
    expect(await run(`await import("node:fs");`)).toEqual(failed("1", "unsupported import in exec"));
    expect(await run(`text(String(await import("x").catch((e) => "caught " + e)));`)).toEqual(
      completed("1", [text("caught unsupported import in exec")]),
    );
  });

  it("has no fetch and no console", async () => {
    const source = [
      `text(typeof console); text(typeof fetch);`,
      `try { await fetch("http://127.0.0.1:9/"); text("fetched"); } catch (e) { text(String(e)); }`,
    ].join("\n");
    expect(await run(source)).toEqual(completed("1", [text("undefined"), text("undefined"), text("ReferenceError: fetch is not defined")]));
  });

  it("runs code from strings only where the platform allows it", async () => {
    const source = [
      `try { text(String(eval("1 + 1"))); } catch (e) { text("eval threw"); }`,
      `try { text(String(new Function("return 3")())); } catch (e) { text("Function threw"); }`,
    ].join("\n");
    // The reference's V8 allows both; a Worker never generates code from strings.
    const expected = target.differences.codeFromStrings ? [text("2"), text("3")] : [text("eval threw"), text("Function threw")];
    expect(await run(source)).toEqual(completed("1", expected));
  });

  it("defines each of Codex's helpers as a global", async () => {
    const source = `text(${JSON.stringify(CODEX_GLOBALS)}.map((name) => name + ":" + typeof globalThis[name]).join(","));`;
    const expected = CODEX_GLOBALS.map((name) => `${name}:${name === "ALL_TOOLS" || name === "tools" ? "object" : "function"}`).join(",");
    expect(await run(source)).toEqual(completed("1", [text(expected)]));
  });

  it("has no enumerable globals but Codex's helpers", async () => {
    expect(await run(`text(Object.keys(globalThis).sort().join(","));`)).toEqual(completed("1", [text(CODEX_GLOBALS.join(","))]));
  });

  it("has no WebAssembly, Atomics, SharedArrayBuffer, process or require", async () => {
    const deleted = `text([typeof WebAssembly, typeof Atomics, typeof SharedArrayBuffer, typeof process, typeof require].join(","));`;
    expect(await run(deleted)).toEqual(completed("1", [text("undefined,undefined,undefined,undefined,undefined")]));
  });

  it("accepts an export statement in a cell", async () => {
    expect(await run(`export const x = 1;\ntext(String(x));`)).toEqual(completed("1", [text("1")]));
  });

  it("ends a cell at exit(), which the cell cannot catch", async () => {
    expect(await run(`text("before"); try { exit(); } catch (e) { text("caught " + e); } text("after");`)).toEqual(
      completed("1", [text("before")]),
    );
  });

  it("reports a syntax error as the cell's error text, not as a failed call", async () => {
    expect(await run(`const x = ;`)).toEqual(failed("1", "SyntaxError: Unexpected token ';'"));
    expect(await run(`let a = 1;\nlet a = 2;`)).toEqual(failed("1", "SyntaxError: Identifier 'a' has already been declared"));
    expect(await run(`await 1;\nfoo(`)).toEqual(failed("1", "SyntaxError: Unexpected end of input"));
  });

  it("reports an uncaught error with its stack in the cell's module", async () => {
    expect(await run(`throw new RangeError("x");`)).toEqual(failed("1", "RangeError: x\n    at exec_main.mjs:1:7"));
    expect(await run(`\n\n  null.f();`)).toEqual(
      failed("1", "TypeError: Cannot read properties of null (reading 'f')\n    at exec_main.mjs:3:8"),
    );
  });

  it("reports a thrown string as its text and a thrown object as its string form", async () => {
    expect(await run(`throw "plain words";`)).toEqual(failed("1", "plain words"));
    expect(await run(`throw { a: 1 };`)).toEqual(failed("1", "[object Object]"));
  });

  it("fails a cell whose text cannot be turned into JSON", async () => {
    expect(await run(`text([1n]);`)).toEqual(failed("1", "TypeError: Do not know how to serialize a BigInt\n    at exec_main.mjs:1:1"));
  });

  it("turns primitives into text with String and anything else with JSON", async () => {
    const source = `const r = "output"; text([r, load("saved") ?? null]); text(42); text({ a: 1 }); text(null); text(undefined); text(true);`;
    expect(await run(source)).toEqual(
      completed("1", [text('["output",null]'), text("42"), text('{"a":1}'), text("null"), text("undefined"), text("true")]),
    );
  });

  it("gives a data URL image the high detail by default and keeps a detail it is given", async () => {
    const source = `image("${PNG}"); image("${PNG}", "low"); image({ image_url: "${PNG}", detail: "original" });`;
    expect(await run(source)).toEqual(
      completed("1", [
        { image: PNG, detail: "high" },
        { image: PNG, detail: "low" },
        { image: PNG, detail: "original" },
      ]),
    );
  });

  it("turns an MCP image block into a data URL", async () => {
    expect(await run(`image({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });`)).toEqual(
      completed("1", [{ image: PNG, detail: "high" }]),
    );
  });

  it("refuses remote image URLs, other URLs and unknown details with Codex's texts", async () => {
    const attempt = (call: string) => `try { ${call}; } catch (e) { text(String(e)); }`;
    const source = [
      attempt(`image("https://example.com/a.png")`),
      attempt(`image("file:///a.png")`),
      attempt(`image("${PNG}", "huge")`),
    ].join("\n");
    expect(await run(source)).toEqual(
      completed("1", [
        text("Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead"),
        text("Tool call failed: invalid image output. Pass a base64 data URI instead"),
        text("image detail must be one of: auto, low, high, original"),
      ]),
    );
  });

  it("does not keep a finished cell alive for a pending timer, and clearTimeout cancels one", async () => {
    const source = [
      `const cleared = setTimeout(() => text("cleared fired"), 5);`,
      `clearTimeout(cleared);`,
      `await new Promise((resolve) => setTimeout(resolve, 20));`,
      `setTimeout(() => text("late"), 60000);`,
      `text(typeof cleared);`,
      `text("done");`,
    ].join("\n");
    expect(await run(source)).toEqual(completed("1", [text("number"), text("done")]));
  });

  it("returns all the output whatever max_output_tokens says (the model layer truncates)", async () => {
    const session = await open();
    const long = "word ".repeat(4_000);
    const outcome = observed(await execute(session, `text(${JSON.stringify(long)});`, { maxOutputTokens: 1 }).outcome());
    expect(outcome).toEqual(completed("1", [text(long)]));
  });
});
