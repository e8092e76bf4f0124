// What a cell's JavaScript sees, and the texts it gets back: every expectation here was
// observed on the reference host (codex-code-mode-host 0.169.0) with the same source.
import { describe, expect, it } from "vitest";
import type { CodeModeSession } from "../../../../src/code-mode/engine/session.ts";
import type { ExecuteRequest, RuntimeResponse } from "../../../../src/code-mode/engine/engine-types.ts";
import { withTimeout } from "../../../support/deferred.ts";
import { newSession, RecordingDelegate, request, text, tool } from "../../../support/code-mode-engine.ts";
import { CODEX_GLOBALS } from "../../../support/codex-globals.ts";

const T = 10_000;

/** `Object.keys(globalThis)` in a reference cell, sorted. */
/** `Object.getOwnPropertyNames(globalThis)` in a reference cell, sorted. */
const REFERENCE_OWN_NAMES =
  "ALL_TOOLS,AggregateError,Array,ArrayBuffer,AsyncDisposableStack,BigInt,BigInt64Array,BigUint64Array,Boolean,DataView,Date," +
  "DisposableStack,Error,EvalError,FinalizationRegistry,Float16Array,Float32Array,Float64Array,Function,Infinity,Int16Array," +
  "Int32Array,Int8Array,Intl,Iterator,JSON,Map,Math,NaN,Number,Object,Promise,Proxy,RangeError,ReferenceError,Reflect,RegExp," +
  "Set,String,SuppressedError,Symbol,SyntaxError,TypeError,URIError,Uint16Array,Uint32Array,Uint8Array,Uint8ClampedArray," +
  "WeakMap,WeakRef,WeakSet,as_settled,audio,clearTimeout,content,decodeURI,decodeURIComponent,encodeURI,encodeURIComponent," +
  "escape,eval,exit,generatedImage,globalThis,image,isFinite,isNaN,load,notify,parseFloat,parseInt,setTimeout,store," +
  "stream_settled,text,tools,undefined,unescape,yield_control";
/** Names whose `typeof` is "undefined" in a reference cell. */
const ABSENT_NAMES = [
  "fetch",
  "WebSocket",
  "Request",
  "Response",
  "Headers",
  "URL",
  "URLSearchParams",
  "URLPattern",
  "TextEncoder",
  "TextDecoder",
  "structuredClone",
  "queueMicrotask",
  "setInterval",
  "clearInterval",
  "setImmediate",
  "clearImmediate",
  "atob",
  "btoa",
  "crypto",
  "CryptoKey",
  "performance",
  "navigator",
  "Blob",
  "File",
  "FormData",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "CompressionStream",
  "AbortController",
  "AbortSignal",
  "Event",
  "EventTarget",
  "MessageChannel",
  "caches",
  "self",
  "global",
  "process",
  "Buffer",
  "require",
  "module",
  "exports",
  "console",
  "WebAssembly",
  "Atomics",
  "SharedArrayBuffer",
  "scheduler",
  "Cloudflare",
  "ServiceWorkerGlobalScope",
  "origin",
  "HTMLRewriter",
  "DOMException",
  "reportError",
  "addEventListener",
  "removeEventListener",
  "dispatchEvent",
  "EventSource",
  "Navigator",
  "Performance",
];

async function run(source: string, extra: Partial<ExecuteRequest> = {}, session: CodeModeSession = newSession()): Promise<RuntimeResponse> {
  const started = session.execute(request(source, extra), new RecordingDelegate());
  return withTimeout(started.initialResponse, T, `the result of ${source}`);
}

async function errorOf(source: string, extra: Partial<ExecuteRequest> = {}): Promise<string | undefined> {
  const response = await run(source, extra);
  return response.kind === "completed" ? response.errorText : `not completed: ${response.kind}`;
}

async function textsOf(source: string, extra: Partial<ExecuteRequest> = {}): Promise<string[]> {
  const response = await run(source, extra);
  if (response.kind === "completed" && response.errorText !== undefined) throw new Error(`cell failed: ${response.errorText}`);
  return response.items.map((item) => {
    if (item.type === "input_text") return item.text;
    return item.type === "input_image" ? `image ${item.image_url} ${item.detail}` : `audio ${item.audio_url}`;
  });
}

describe("uncaught errors", () => {
  it("report the stack with positions in the user's source, as the module exec_main.mjs", async () => {
    expect(await errorOf(`throw new RangeError("x")`)).toBe("RangeError: x\n    at exec_main.mjs:1:7");
    expect(await errorOf(`  let a = 1;\n throw new RangeError("y")`)).toBe("RangeError: y\n    at exec_main.mjs:2:8");
    expect(await errorOf(`function f() { throw new Error("deep"); }\nfunction g() { f(); }\ng();`)).toBe(
      "Error: deep\n    at f (exec_main.mjs:1:22)\n    at g (exec_main.mjs:2:16)\n    at exec_main.mjs:3:1",
    );
    expect(await errorOf(`await Promise.resolve(); null.x;`)).toBe(
      "TypeError: Cannot read properties of null (reading 'x')\n    at exec_main.mjs:1:31",
    );
    expect(await errorOf(`async function f() { await null; throw new Error("af") }\nawait f()`)).toBe(
      "Error: af\n    at f (exec_main.mjs:1:40)\n    at async exec_main.mjs:2:1",
    );
    expect(await errorOf(`await new Promise((_, rej) => rej(new Error("async rej")))`)).toBe(
      "Error: async rej\n    at exec_main.mjs:1:35\n    at new Promise (<anonymous>)\n    at exec_main.mjs:1:7",
    );
    expect(await errorOf(`(function named() { throw new TypeError("t") })()`)).toBe(
      "TypeError: t\n    at named (exec_main.mjs:1:27)\n    at exec_main.mjs:1:48",
    );
  });

  it("report a thrown string as its text, an object as [object Object], an error without a string stack by its string form", async () => {
    expect(await errorOf(`throw "str"`)).toBe("str");
    expect(await errorOf(`throw {a:1}`)).toBe("[object Object]");
    expect(await errorOf(`const e = new Error("m"); e.stack = 42; throw e;`)).toBe("Error: m");
  });

  it("keep the output written before the error", async () => {
    expect(await run(`text("x".repeat(3)); throw new Error("after text")`)).toEqual({
      kind: "completed",
      cellId: "1",
      items: [text("xxx")],
      errorText: "Error: after text\n    at exec_main.mjs:1:28",
    });
  });

  it("from a timer callback fail the cell", async () => {
    expect(
      await errorOf(`setTimeout(() => { throw new Error("in timer") }, 1); await new Promise(r => setTimeout(r, 20)); text("still")`),
    ).toBe("Error: in timer\n    at exec_main.mjs:1:26");
  });

  it("raised inside a helper point at the helper's call, as a native function's would", async () => {
    expect(await errorOf(`store("big", 1n)`)).toBe("TypeError: Do not know how to serialize a BigInt\n    at exec_main.mjs:1:1");
    expect(await errorOf(`const o = {}; o.o = o; store("cyc", o)`)).toBe(
      "TypeError: Converting circular structure to JSON\n    --> starting at object with constructor 'Object'\n    --- property 'o' closes the circle\n    at exec_main.mjs:1:24",
    );
  });

  it("that break the harness itself end the cell as a runtime that ended unexpectedly", async () => {
    expect(await errorOf(`Promise.prototype.then = null; text("x")`)).toBe("exec runtime ended unexpectedly");
  });
});

describe("source analysis", () => {
  it("reports a syntax error with V8's message, as a completed result", async () => {
    expect(await run(`x = ;`)).toEqual({ kind: "completed", cellId: "1", items: [], errorText: "SyntaxError: Unexpected token ';'" });
    expect(await errorOf(`let x = 1\nlet x = 2`)).toBe("SyntaxError: Identifier 'x' has already been declared");
    expect(await errorOf(`return 5`)).toBe("SyntaxError: Illegal return statement");
  });

  it("refuses static imports with Codex's text, naming the first one", async () => {
    expect(await errorOf(`import fs from "node:fs"; text(1)`)).toBe("Unsupported import in exec: node:fs");
    expect(await errorOf(`import { a } from "./b.js"; import c from "d";`)).toBe("Unsupported import in exec: ./b.js");
    expect(await errorOf(`export * from "x"`)).toBe("Unsupported import in exec: x");
    expect(await errorOf(`export { a } from "y"`)).toBe("Unsupported import in exec: y");
  });

  it("rejects a dynamic import at run time with a string", async () => {
    expect(await errorOf(`await import("node:fs")`)).toBe("unsupported import in exec");
    expect(await textsOf(`import("x").catch(e => text(String(e) + "|" + typeof e))`)).toEqual(["unsupported import in exec|string"]);
  });

  it("accepts exports and ignores them", async () => {
    expect(await textsOf(`const a = 1; export { a }; text("ok")`)).toEqual(["ok"]);
    expect(await textsOf(`export default 5; text("ok")`)).toEqual(["ok"]);
    expect(await textsOf(`export default function () {}; text("ok")`)).toEqual(["ok"]);
    expect(await textsOf(`export function named() { return 1 }; text(named())`)).toEqual(["1"]);
  });
});

describe("globals", () => {
  it("has no console, Atomics, SharedArrayBuffer, WebAssembly or fetch", async () => {
    expect(await textsOf(`text(typeof console + typeof Atomics + typeof SharedArrayBuffer + typeof WebAssembly)`)).toEqual([
      "undefinedundefinedundefinedundefined",
    ]);
    expect(await textsOf(`try { await fetch("http://x") } catch (e) { text(typeof e + ":" + String(e)) }`)).toEqual([
      "object:ReferenceError: fetch is not defined",
    ]);
  });

  it("has no enumerable globals but Codex's helpers", async () => {
    expect(await textsOf(`text(Object.keys(globalThis).sort().join(","))`)).toEqual([CODEX_GLOBALS.join(",")]);
    const expected = CODEX_GLOBALS.map((name) => `${name}:${name === "ALL_TOOLS" || name === "tools" ? "object" : "function"}`);
    expect(await textsOf(`text(${JSON.stringify(CODEX_GLOBALS)}.map((name) => name + ":" + typeof globalThis[name]).join(","))`)).toEqual([
      expected.join(","),
    ]);
  });

  it("has only V8's ECMAScript builtins besides them, on a plain prototype", async () => {
    expect(await textsOf(`text(Object.getOwnPropertyNames(globalThis).sort().join(","))`)).toEqual([REFERENCE_OWN_NAMES]);
    expect(
      await textsOf(`const p = Object.getPrototypeOf(globalThis); text(String(p) + " " + Object.getOwnPropertyNames(p).join(","))`),
    ).toEqual(["[object Object] constructor"]);
  });

  it("has none of the Web, Workers or Node names a model might probe", async () => {
    const probe = `const names = ${JSON.stringify(ABSENT_NAMES)}; text(names.filter((n) => typeof globalThis[n] !== "undefined").join(","))`;
    expect(await textsOf(probe)).toEqual([""]);
    const typeofs = `text([typeof WebAssembly, typeof Atomics, typeof SharedArrayBuffer, typeof process, typeof require].join(","))`;
    expect(await textsOf(typeofs)).toEqual(["undefined,undefined,undefined,undefined,undefined"]);
  });

  it("keeps its timers and tool calls working without the globals it hid", async () => {
    const source = `await new Promise((r) => setTimeout(r, 1)); text(await tools.echo({ a: 1 })); text(typeof setInterval)`;
    expect(await textsOf(source, { enabledTools: [tool("echo")] })).toEqual(['{"a":1}', "undefined"]);
  });

  it("refuses code generation from strings (a Workers rule; the reference allows eval)", async () => {
    expect(await textsOf(`try { eval("1") } catch (e) { text(String(e)) }`)).toEqual([
      "EvalError: Code generation from strings disallowed for this context",
    ]);
    expect(await textsOf(`try { new Function("return 1")() } catch (e) { text(String(e)) }`)).toEqual([
      "EvalError: Code generation from strings disallowed for this context",
    ]);
  });

  it("lists the enabled tools under JS identifiers in tools and ALL_TOOLS", async () => {
    const enabledTools = [tool("echo"), tool("my-tool.x"), tool("1st"), tool("über"), tool("$ok")];
    expect(await textsOf(`text(Object.keys(tools).join(","))`, { enabledTools })).toEqual(["echo,my_tool_x,_st,_ber,$ok"]);
    expect(await textsOf(`text(ALL_TOOLS)`, { enabledTools: [tool("echo"), tool("my-tool.x")] })).toEqual([
      '[{"name":"echo","description":"the echo tool"},{"name":"my_tool_x","description":"the my-tool.x tool"}]',
    ]);
    expect(await textsOf(`text(String(tools.echo)); text(JSON.stringify(tools))`, { enabledTools })).toEqual([
      "function () { [native code] }",
      "{}",
    ]);
  });

  it("makes a tool that is not enabled a TypeError", async () => {
    expect(await errorOf(`await tools.nope()`)).toBe("TypeError: tools.nope is not a function\n    at exec_main.mjs:1:13");
  });
});

describe("text", () => {
  it("prints primitives with String and everything else as JSON", async () => {
    expect(
      await textsOf(`text({a:1}); text([1,"x"]); text(undefined); text(null); text(5); text(NaN); text(-0); text(true); text(1n)`),
    ).toEqual(['{"a":1}', '[1,"x"]', "undefined", "null", "5", "NaN", "0", "true", "1"]);
    expect(
      await textsOf(`text(Symbol("s")); text(() => 1); text(new Date(0)); text({toJSON() { return "tj" }}); text(""); text("a", "b")`),
    ).toEqual(["undefined", "undefined", '"1970-01-01T00:00:00.000Z"', '"tj"', "", "a"]);
  });
});

describe("image", () => {
  it("accepts data URLs, image_url objects and MCP image blocks, with detail high by default", async () => {
    const items = (
      await run(
        `image("data:image/png;base64,AAAA"); image("data:x", "low"); image({image_url: "data:y", detail: "auto"}); image({type: "image", data: "AAA"});` +
          ` image({type: "image", data: "AAA", mimeType: "image/jpeg"}, "original"); image("DATA:z", "HIGH"); image({image_url: "data:w", detail: "low"}, "high")`,
      )
    ).items;
    expect(items).toEqual([
      { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "high" },
      { type: "input_image", image_url: "data:x", detail: "low" },
      { type: "input_image", image_url: "data:y", detail: "auto" },
      { type: "input_image", image_url: "data:application/octet-stream;base64,AAA", detail: "high" },
      { type: "input_image", image_url: "data:image/jpeg;base64,AAA", detail: "original" },
      { type: "input_image", image_url: "DATA:z", detail: "high" },
      { type: "input_image", image_url: "data:w", detail: "high" },
    ]);
  });

  it("rejects other input with Codex's texts, thrown as strings", async () => {
    const shape = "image expects a non-empty image URL string, an object with image_url and optional detail, or a raw MCP image block";
    expect(await textsOf(`try { image("https://x") } catch (e) { text(typeof e + ":" + e) }`)).toEqual([
      "string:Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
    ]);
    expect(await errorOf(`image("http://x/y.png", "bogus")`)).toBe(
      "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
    );
    expect(await errorOf(`image("file:///x")`)).toBe("Tool call failed: invalid image output. Pass a base64 data URI instead");
    expect(await errorOf(`image(" data:x")`)).toBe("Tool call failed: invalid image output. Pass a base64 data URI instead");
    expect(await errorOf(`image("data:x", "bogus")`)).toBe("image detail must be one of: auto, low, high, original");
    expect(await errorOf(`image("data:x", 5)`)).toBe("image detail must be a string when provided");
    expect(await errorOf(`image({})`)).toBe(shape);
    expect(await errorOf(`image(5, "bogus")`)).toBe(shape);
    expect(await errorOf(`image("")`)).toBe(shape);
    expect(await errorOf(`image({image_url: 5})`)).toBe(shape);
    expect(await errorOf(`image({type: "image", data: ""})`)).toBe("image expected MCP image data");
    expect(await errorOf(`image({type: "text", text: "x"})`)).toBe('image only accepts MCP image blocks, got "text"');
    expect(await errorOf(`image({type: 5})`)).toBe(shape);
    expect(await errorOf(`image(() => 1)`)).toBe("failed to serialize JavaScript value: expected value at line 1 column 1");
  });
});

describe("store and load", () => {
  it("store JSON copies by string key; load returns a copy or undefined", async () => {
    expect(
      await textsOf(
        `store("nan", NaN); store("d", new Date(0)); store("u", {a: undefined, b: 1}); text([load("nan"), load("d"), load("u")]);` +
          ` store(5, "num"); text(load("5")); store("x", {a: [1]}); const v = load("x"); v.a.push(2); text(load("x")); text(load("missing") === undefined)`,
      ),
    ).toEqual(['[null,"1970-01-01T00:00:00.000Z",{"b":1}]', "num", '{"a":[1]}', "true"]);
  });

  it("refuse values JSON cannot hold with Codex's texts", async () => {
    expect(await errorOf(`store("k", undefined)`)).toBe('Unable to store "k". Only plain serializable objects can be stored.');
    expect(await textsOf(`try { store("k", undefined) } catch (e) { text(typeof e) }`)).toEqual(["string"]);
    expect(await errorOf(`store("f", () => 1)`)).toBe("failed to serialize JavaScript value: expected value at line 1 column 1");
  });
});

describe("notify", () => {
  it("sends text through the delegate with the exec call id and refuses empty text", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    const response = await session.execute(
      request(`notify("hello"); notify(5); notify({a:1}); notify(); text("done")`, { toolCallId: "call-9" }),
      delegate,
    ).initialResponse;
    expect(response).toEqual({ kind: "completed", cellId: "1", items: [text("done")] });
    expect(delegate.notifications.map((n) => [n.callId, n.cellId, n.text])).toEqual([
      ["call-9", "1", "hello"],
      ["call-9", "1", "5"],
      ["call-9", "1", '{"a":1}'],
      ["call-9", "1", "undefined"],
    ]);
    expect(await errorOf(`notify("")`)).toBe("notify expects non-empty text");
    expect(await errorOf(`notify("   ")`)).toBe("notify expects non-empty text");
  });

  it("goes on when the delegate's notify fails", async () => {
    const session = newSession();
    const delegate = new RecordingDelegate();
    delegate.notify = () => Promise.reject(new Error("delegate down"));
    expect(await session.execute(request(`notify("x"); text("after")`), delegate).initialResponse).toEqual({
      kind: "completed",
      cellId: "1",
      items: [text("after")],
    });
    const throwing = new RecordingDelegate();
    throwing.notify = () => {
      throw new Error("thrown");
    };
    expect(await session.execute(request(`notify("x"); text("after")`), throwing).initialResponse).toMatchObject({
      items: [text("after")],
    });
  });
});

describe("exit", () => {
  it("ends the cell successfully with the output and writes made before it; code after it does not run", async () => {
    const session = newSession();
    expect(await run(`text("before"); store("e1", 1); exit(); text("after"); store("e2", 2)`, {}, session)).toEqual({
      kind: "completed",
      cellId: "1",
      items: [text("before")],
    });
    expect(await textsOf(`text([load("e1"), load("e2") ?? null])`)).toEqual(["[null,null]"]);
    expect(await run(`text([load("e1"), load("e2") ?? null])`, {}, session)).toMatchObject({ items: [text("[1,null]")] });
  });

  it("cannot be caught and works from inside an async function", async () => {
    expect(await textsOf(`try { exit() } catch (e) { text("caught:" + e) }`)).toEqual([]);
    expect(await textsOf(`await (async () => { exit() })(); text("after")`)).toEqual([]);
  });
});

describe("timers", () => {
  it("run callbacks without arguments, return numeric ids from 1, and can be cleared", async () => {
    expect(
      await textsOf(
        `const id = setTimeout(() => text("never"), 10); text(typeof id + ":" + id); clearTimeout(id);` +
          ` setTimeout((a, b) => text([a, b]), 1, "x", "y"); await new Promise(r => setTimeout(r, 30))`,
      ),
    ).toEqual(["number:1", "[null,null]"]);
    expect(await errorOf(`setTimeout("text(1)", 1)`)).toBe("setTimeout expects a function callback");
  });

  it("do not keep a finished cell alive", async () => {
    expect(await textsOf(`setTimeout(() => text("late"), 60000); text("now")`)).toEqual(["now"]);
  });
});

describe("settled helpers", () => {
  it("as_settled yields results in the order they settle; stream_settled calls back for each", async () => {
    const enabledTools = [tool("echo")];
    expect(
      await textsOf(
        `const echo = tools.echo({a: 1}); const later = echo.then(() => "later"); for await (const r of as_settled([later, Promise.reject("no"), echo])) text(r)`,
        { enabledTools },
      ),
    ).toEqual([
      '{"index":1,"status":"rejected","reason":"no"}',
      '{"index":2,"status":"fulfilled","value":{"a":1}}',
      '{"index":0,"status":"fulfilled","value":"later"}',
    ]);
    expect(await textsOf(`await stream_settled(new Map([["k", Promise.resolve(1)]]), (r) => text(r))`)).toEqual([
      '{"index":"k","status":"fulfilled","value":1}',
    ]);
    expect(await textsOf(`try { await stream_settled([]) } catch (e) { text(String(e)) }`)).toEqual([
      "TypeError: stream_settled requires a callback",
    ]);
  });
});

describe("caught errors", () => {
  it("have the stacks Codex shows, positions in the user's source", async () => {
    expect(await textsOf(`text(new Error("q").stack)`)).toEqual(["Error: q\n    at exec_main.mjs:1:6"]);
    expect(await textsOf(`try { null.x } catch (e) { text(e.stack) }`)).toEqual([
      "TypeError: Cannot read properties of null (reading 'x')\n    at exec_main.mjs:1:12",
    ]);
  });
});

describe("module scope", () => {
  it("has no arguments and no this, as at a module's top level", async () => {
    expect(await textsOf(`text(typeof arguments); text(typeof this)`)).toEqual(["undefined", "undefined"]);
  });
});
