// The in-isolate half of a cell (docs/code-mode.md#harness): the main module of each
// Worker Loader isolate. It builds Codex's globals, runs `exec_main.mjs` and returns the
// stored-value writes and the error text. Kept as text because it is code for another
// isolate, not for this bundle: a String.raw template whose only ${…} placeholders are
// the module names and line offset shared with this side (the harness's own code uses
// string concatenation and no backticks, so nothing else is interpolated).
//
// - `host` is the session's RpcTarget, passed as an RPC argument. `host.lease()` stays
//   pending for the cell's life, so that a never-settling await is not killed as hung;
//   the host settles it to stop the cell (the race below then returns).
// - `text()` & co. are synchronous: events are buffered and flushed to `host.events` in a
//   microtask (and at once before a yield or a tool call); every flush is awaited before
//   run() returns, because RPCs left pending when it returns are lost.
// - Helper errors are thrown as strings, as Codex throws them.
import { MEDIA_MODULE } from "./harness-media.ts";
import { CELL_MODULE, FIRST_LINE_OFFSET } from "./cell-source.ts";

export const HARNESS_MODULE = "harness.js";

export const HARNESS_SOURCE = String.raw`
import { WorkerEntrypoint } from "cloudflare:workers";
import cellMain from "./${CELL_MODULE}";
import { audioItem, contentBlockItem, generatedImageItems, imageItem } from "./${MEDIA_MODULE}";

const FIRST_LINE_OFFSET = ${FIRST_LINE_OFFSET};
const EXIT = "__codex_code_mode_exit__";

// Captured before the cell runs, so that a cell replacing them cannot break the harness.
const { stringify, parse } = JSON;
const realSetTimeout = globalThis.setTimeout.bind(globalThis);
const realClearTimeout = globalThis.clearTimeout.bind(globalThis);
const realQueueMicrotask = globalThis.queueMicrotask.bind(globalThis);

const iteratorKey = Symbol.iterator;
const apply = Reflect.apply;

// A Codex cell sees V8's ECMAScript globals and its own helpers only: workerd's Web and
// Node globals go (fetch and console with them), and the global object's prototype
// chain too (docs/code-mode.md#globals). All of them are configurable here.
const ECMASCRIPT_GLOBALS = new Set([
  "AggregateError", "Array", "ArrayBuffer", "AsyncDisposableStack", "BigInt", "BigInt64Array", "BigUint64Array", "Boolean",
  "DataView", "Date", "DisposableStack", "Error", "EvalError", "FinalizationRegistry", "Float16Array", "Float32Array",
  "Float64Array", "Function", "Infinity", "Int16Array", "Int32Array", "Int8Array", "Intl", "Iterator", "JSON", "Map", "Math",
  "NaN", "Number", "Object", "Promise", "Proxy", "RangeError", "ReferenceError", "Reflect", "RegExp", "Set", "String",
  "SuppressedError", "Symbol", "SyntaxError", "TypeError", "URIError", "Uint16Array", "Uint32Array", "Uint8Array",
  "Uint8ClampedArray", "WeakMap", "WeakRef", "WeakSet", "decodeURI", "decodeURIComponent", "encodeURI",
  "encodeURIComponent", "escape", "eval", "globalThis", "isFinite", "isNaN", "parseFloat", "parseInt", "undefined", "unescape",
]);
for (const key of Reflect.ownKeys(globalThis)) {
  if (typeof key !== "string" || !ECMASCRIPT_GLOBALS.has(key)) delete globalThis[key];
}
Object.setPrototypeOf(globalThis, Object.create(Object.prototype, { constructor: { value: Object, writable: true, configurable: true } }));

function native(fn) {
  // A bound function prints as "function () { [native code] }", as Codex's helpers do.
  return fn.bind(undefined);
}

function formatText(value) {
  if (typeof value === "string") return value;
  const type = typeof value;
  if (value === undefined || value === null || type === "number" || type === "boolean" || type === "bigint") return String(value);
  const json = stringify(value);
  return json === undefined ? "undefined" : json;
}

function isCellFrame(line) {
  return line.includes("${CELL_MODULE}:");
}

function isHarnessFrame(line) {
  return line.includes("${HARNESS_MODULE}:") || line.includes("${MEDIA_MODULE}:");
}

// Stacks as Codex shows them, also for errors the cell catches: frames of the harness
// dropped (with the native frames they called, e.g. JSON.stringify inside store()), the
// wrapper function shown as module code, line-1 columns without the wrapper's prefix.
function codexFrames(frames) {
  const firstCell = frames.findIndex(isCellFrame);
  const own = firstCell > 0 && frames.slice(0, firstCell).some(isHarnessFrame) ? frames.slice(firstCell) : frames;
  return own.filter((line) => !isHarnessFrame(line)).map((line) =>
    line
      .replace(/^(\s+at )(async )?default \(([^()]*)\)$/, "$1$2$3")
      .replace(/${CELL_MODULE.replace(".", "\\.")}:1:(\d+)/g, (_, column) => "${CELL_MODULE}:1:" + Math.max(1, Number(column) - FIRST_LINE_OFFSET)),
  );
}

const errorToString = Error.prototype.toString;
Error.prepareStackTrace = (error, sites) => {
  let header;
  try {
    header = errorToString.call(error);
  } catch {
    header = "Error";
  }
  return [header].concat(codexFrames(sites.map((site) => "    at " + site))).join("\n");
};

function errorText(error) {
  if (error !== null && (typeof error === "object" || typeof error === "function")) {
    let stack;
    try {
      stack = error.stack;
    } catch {}
    if (typeof stack === "string") return stack;
  }
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

// Promises in the order they settle, as Codex's as_settled: {index, status, value | reason},
// the index being the position, or the key of a Map.
function as_settled(promises) {
  const keyed = promises instanceof Map;
  let ready = [];
  let pending = 0;
  let wake;
  let done = false;
  const settle = (result) => {
    pending--;
    if (done) return;
    ready.push(result);
    if (wake) {
      const resume = wake;
      wake = undefined;
      resume();
    }
  };
  let position = 0;
  for (const entry of promises) {
    const [index, promise] = keyed ? entry : [position++, entry];
    pending++;
    Promise.resolve(promise).then(
      (value) => settle({ index, status: "fulfilled", value }),
      (reason) => settle({ index, status: "rejected", reason }),
    );
  }
  return (async function* () {
    try {
      while (pending > 0 || ready.length > 0) {
        if (ready.length === 0) await new Promise((resolve) => (wake = resolve));
        const batch = ready;
        ready = [];
        yield* batch;
      }
    } finally {
      done = true;
      ready = [];
    }
  })();
}

async function stream_settled(promises, emit) {
  if (typeof emit !== "function") throw new TypeError("stream_settled requires a callback");
  for await (const result of as_settled(promises)) await emit(result);
}

function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

async function runCell(host, init) {
  let buffer = [];
  let flushQueued = false;
  let finished = false;
  let exited = false;
  const flushes = new Set();
  const exitSignal = deferred();
  const timerFailure = deferred();
  const lease = Promise.resolve(host.lease()).then(
    () => ({ kind: "stopped" }),
    () => ({ kind: "stopped" }),
  );

  function closed() {
    return finished || exited;
  }
  function flush() {
    flushQueued = false;
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    const sent = Promise.resolve(host.events(batch)).then(
      () => {},
      () => {},
    );
    flushes.add(sent);
    sent.then(() => flushes.delete(sent));
  }
  function push(event) {
    buffer.push(event);
    if (!flushQueued) {
      flushQueued = true;
      realQueueMicrotask(flush);
    }
  }

  const values = new Map();
  for (const [key, value] of Object.entries(init.snapshot)) values.set(key, stringify(value));
  const writes = new Map();

  const timers = new Map();
  let timerSeq = 0;

  const tools = {};
  init.tools.forEach((tool, index) => {
    tools[tool.name] = native(function (input) {
      if (closed()) return new Promise(() => {});
      let inputJson;
      if (input !== undefined) {
        try {
          inputJson = stringify(input);
        } catch (error) {
          return Promise.reject(errorText(error));
        }
        if (inputJson === undefined) return Promise.reject("failed to serialize JavaScript value: expected value at line 1 column 1");
      }
      flush();
      return Promise.resolve(host.callTool(index, inputJson)).then((reply) => {
        if (!reply.ok) throw reply.message;
        return reply.outputJson === undefined ? undefined : parse(reply.outputJson);
      });
    });
  });

  const globals = {
    tools,
    ALL_TOOLS: init.tools.map((tool) => ({ name: tool.name, description: tool.description })),
    text: native(function (value) {
      if (closed()) return;
      push({ type: "item", item: { type: "input_text", text: formatText(value) } });
    }),
    image: native(function (value, detail) {
      if (closed()) return;
      push({ type: "item", item: imageItem(value, detail) });
    }),
    audio: native(function (value) {
      if (closed()) return;
      push({ type: "item", item: audioItem(value) });
    }),
    generatedImage: native(function (value) {
      if (closed()) return;
      for (const item of generatedImageItems(value)) push({ type: "item", item });
    }),
    // Codex's content(): one MCP ContentBlock, or any iterable of them (a string is one
    // block); the blocks before a refused one stay in the output.
    content: function content(value) {
      if (closed()) return;
      const iterate = typeof value === "string" ? undefined : value?.[iteratorKey];
      if (typeof iterate !== "function") {
        push({ type: "item", item: contentBlockItem(value) });
        return;
      }
      for (const block of { [iteratorKey]: () => apply(iterate, value, []) }) {
        if (closed()) return;
        push({ type: "item", item: contentBlockItem(block) });
      }
    },
    store: native(function (key, value) {
      if (closed()) return;
      const name = String(key);
      if (value === undefined) throw "Unable to store " + stringify(name) + ". Only plain serializable objects can be stored.";
      const json = stringify(value);
      if (json === undefined) throw "failed to serialize JavaScript value: expected value at line 1 column 1";
      values.set(name, json);
      writes.set(name, json);
    }),
    load: native(function (key) {
      const json = values.get(String(key));
      return json === undefined ? undefined : parse(json);
    }),
    notify: native(function (value) {
      if (closed()) return;
      const message = formatText(value);
      if (message.trim() === "") throw "notify expects non-empty text";
      push({ type: "notify", text: message });
    }),
    yield_control: native(function () {
      if (closed()) return;
      push({ type: "yield" });
      flush();
    }),
    exit: native(function () {
      if (!closed()) {
        flush();
        exited = true;
        exitSignal.resolve();
      }
      throw EXIT;
    }),
    setTimeout: native(function (callback, delay) {
      if (typeof callback !== "function") throw "setTimeout expects a function callback";
      const id = ++timerSeq;
      const ms = Math.max(0, Number(delay) || 0);
      timers.set(
        id,
        realSetTimeout(() => {
          timers.delete(id);
          if (closed()) return;
          try {
            callback();
          } catch (error) {
            timerFailure.resolve({ kind: "error", error });
          }
        }, ms),
      );
      return id;
    }),
    as_settled,
    stream_settled,
    clearTimeout: native(function (id) {
      const handle = timers.get(id);
      if (handle === undefined) return;
      realClearTimeout(handle);
      timers.delete(id);
    }),
  };
  Object.assign(globalThis, globals);

  const rejectImport = () => Promise.reject("unsupported import in exec");
  const main = (async () => cellMain(rejectImport))().then(
    () => ({ kind: "done" }),
    (error) => (exited || error === EXIT ? { kind: "done" } : { kind: "error", error }),
  );
  const outcome = await Promise.race([main, exitSignal.promise.then(() => ({ kind: "done" })), timerFailure.promise, lease]);
  const errorTextValue = outcome.kind === "error" ? errorText(outcome.error) : undefined;
  finished = true;
  for (const handle of timers.values()) realClearTimeout(handle);
  timers.clear();
  flush();
  while (flushes.size > 0) await Promise.all([...flushes]);
  if (outcome.kind === "stopped") return { kind: "stopped" };
  const written = {};
  for (const [key, json] of writes) written[key] = parse(json);
  return errorTextValue === undefined ? { kind: "completed", writes: written } : { kind: "completed", writes: written, errorText: errorTextValue };
}

export default class CellHarness extends WorkerEntrypoint {
  async run(host, init) {
    try {
      return await runCell(host, init);
    } finally {
      if (typeof host[Symbol.dispose] === "function") host[Symbol.dispose]();
    }
  }
}
`;
