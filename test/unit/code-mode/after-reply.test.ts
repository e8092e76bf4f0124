// src/code-mode/host/after-reply.ts: handOver runs the work it is given when the runtime first
// reads the reply, or drops it, or else from the backstop, and only once; afterReply takes work
// from unary calls only. The backstop is a timer the test fires itself, so nothing here waits on
// the clock.
import { createContextValues, createHandlerContext } from "@connectrpc/connect";
import { afterEach, describe, expect, it } from "vitest";
import { AFTER_REPLY, afterReply, handOver, setHandOverBackstop } from "../../../src/code-mode/host/after-reply.ts";
import { CodeModeHost } from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";

/** The backstops handOver starts, to fire by hand. */
function manualBackstop() {
  const pending = new Set<{ run: () => void; ms: number }>();
  setHandOverBackstop((run, ms) => {
    const entry = { run, ms };
    pending.add(entry);
    return () => pending.delete(entry);
  });
  return {
    pending,
    fire: () => {
      for (const entry of [...pending]) {
        pending.delete(entry);
        entry.run();
      }
    },
  };
}

function reply(...chunks: string[]) {
  async function* body() {
    for (const chunk of chunks) yield new TextEncoder().encode(chunk);
  }
  return { status: 200, header: new Headers({ "content-type": "application/proto" }), body: body() };
}

function counter() {
  const work = () => {
    work.runs++;
  };
  work.runs = 0;
  return work;
}

afterEach(() => setHandOverBackstop());

describe("handOver", () => {
  it("runs the work on the runtime's first read of the reply, which holds the whole body", async () => {
    manualBackstop();
    const work = counter();
    const response = await handOver(reply("ab", "cd"), work);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/proto");
    expect(work.runs).toBe(0);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(work.runs).toBe(1);
    const rest: Uint8Array[] = [first.value!];
    for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(next.value);
    expect(new TextDecoder().decode(Buffer.concat(rest))).toBe("abcd");
    expect(work.runs).toBe(1);
  });

  it("runs the work when the runtime drops the reply unread", async () => {
    manualBackstop();
    const work = counter();
    const response = await handOver(reply("ab"), work);
    await response.body!.cancel();
    expect(work.runs).toBe(1);
  });

  it("runs the work from the backstop, 1 s after the handler returned, when the runtime never reads the reply", async () => {
    const backstop = manualBackstop();
    const work = counter();
    await handOver(reply("ab"), work);
    expect([...backstop.pending].map((entry) => entry.ms)).toEqual([1_000]);
    expect(work.runs).toBe(0);
    backstop.fire();
    expect(work.runs).toBe(1);
  });

  it("runs the work exactly once: a read stops the backstop, and a later drop or backstop does nothing", async () => {
    const backstop = manualBackstop();
    const work = counter();
    const response = await handOver(reply("ab"), work);
    const reader = response.body!.getReader();
    await reader.read();
    expect(backstop.pending.size).toBe(0);
    await reader.cancel();
    expect(work.runs).toBe(1);

    const late = counter();
    const unread = await handOver(reply("ab"), late);
    const [entry] = backstop.pending;
    backstop.fire();
    await unread.body!.cancel();
    entry!.run(); // a backstop that fires anyway, after its work ran
    expect(late.runs).toBe(1);
  });

  it("still runs the work from the backstop when the reply's body fails to drain", async () => {
    const backstop = manualBackstop();
    const work = counter();
    async function* failing(): AsyncIterable<Uint8Array> {
      yield new Uint8Array([1]);
      throw new Error("the body broke");
    }
    await expect(handOver({ status: 200, body: failing() }, work)).rejects.toThrow("the body broke");
    expect(backstop.pending.size).toBe(1);
    backstop.fire();
    expect(work.runs).toBe(1);
  });
});

describe("afterReply", () => {
  const contextOf = (method: (typeof CodeModeHost.method)[keyof typeof CodeModeHost.method], values = createContextValues()) =>
    createHandlerContext({
      service: CodeModeHost,
      method,
      protocolName: "connect",
      requestMethod: "POST",
      url: "/",
      contextValues: values,
    });

  it("hands a unary call's work to the fetch handler, and runs it at once outside one", () => {
    const registered: (() => void)[] = [];
    const values = createContextValues().set(AFTER_REPLY, (work) => registered.push(work));
    const work = counter();
    afterReply(contextOf(CodeModeHost.method.completeToolCall, values), work);
    expect(registered).toEqual([work]);
    expect(work.runs).toBe(0);
    afterReply(contextOf(CodeModeHost.method.completeToolCall), work);
    expect(work.runs).toBe(1);
  });

  it("refuses a streaming call's work, which would otherwise never run: its handler returns before its reply is written", () => {
    const registered: (() => void)[] = [];
    const values = createContextValues().set(AFTER_REPLY, (work) => registered.push(work));
    const work = counter();
    expect(() => afterReply(contextOf(CodeModeHost.method.execute, values), work)).toThrow(
      "afterReply is for unary calls: Execute is server_streaming",
    );
    expect(registered).toEqual([]);
    expect(work.runs).toBe(0);
  });
});
