// The gRPC bridge (bridge/, docs/code-mode.md#grpc-bridge) between a native gRPC
// client and a Connect upstream: a connect-node gRPC client (h2c, as Codex's
// tonic client) calls the bridge, which calls a real Connect server over
// HTTP/1.1 that records what it receives and answers as each test scripts it.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { fromBinary } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { commitHeadersKey, responseHead } from "../../../bridge/response-head.ts";
import { type Bridge, startBridge } from "../../../bridge/server.ts";
import {
  CodeModeHost,
  type OpenSessionRequest,
  OpenSessionRequestSchema,
  type WaitResponse,
} from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { deferred, withTimeout } from "../../support/deferred.ts";

const TOKEN = "bridge-test-token-never-printed-7d3f";
const WAIT_MS = 5_000;
const SESSION_ID = "7b0e2c1e-8d0c-4d83-9d8e-4b1f5a3c2d10";

type Impl = Partial<ServiceImpl<typeof CodeModeHost>>;

interface RecordedCall {
  method: string;
  header: Headers;
}

/** A real Connect server (HTTP/1.1) for the bridge's upstream; each test sets `impl`. */
class RecordingUpstream {
  readonly calls: RecordedCall[] = [];
  impl: Impl = {};
  #server?: Server;
  url = "";

  async start(): Promise<void> {
    const headers = responseHead();
    const handler = connectNodeAdapter({
      routes: (router) => router.service(CodeModeHost, this.#delegating()),
      contextValues: headers.contextValues,
      interceptors: [
        (next) => async (req) => {
          this.calls.push({ method: req.method.name, header: new Headers(req.header) });
          return next(req);
        },
      ],
    });
    this.#server = createServer(headers.wrap(handler));
    await new Promise<void>((done) => this.#server!.listen(0, "127.0.0.1", () => done()));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Every method delegates to the current test's `impl`; a method it lacks is unimplemented. */
  #delegating(): Impl {
    const impl: Record<string, unknown> = {};
    for (const method of CodeModeHost.methods) {
      const pick = () => {
        const chosen = (this.impl as Record<string, unknown>)[method.localName];
        if (!chosen) throw new ConnectError(`${method.name} is not scripted`, Code.Unimplemented);
        return chosen as (request: unknown, ctx: HandlerContext) => unknown;
      };
      impl[method.localName] =
        method.methodKind === "unary"
          ? (request: unknown, ctx: HandlerContext) => pick()(request, ctx)
          : async function* (request: unknown, ctx: HandlerContext) {
              yield* pick()(request, ctx) as AsyncIterable<unknown>;
            };
    }
    return impl as Impl;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((done) => this.#server?.close(() => done()));
  }
}

/** Resolves when the call's signal aborts (the client, or its deadline, ended the call). */
function abortedPromise(ctx: HandlerContext): Promise<void> {
  return new Promise((done) => {
    if (ctx.signal.aborted) done();
    else ctx.signal.addEventListener("abort", () => done(), { once: true });
  });
}

const upstream = new RecordingUpstream();
let bridge: Bridge;
const bridgeCalls: string[] = [];
const client = () => createClient(CodeModeHost, createGrpcTransport({ baseUrl: bridge.url }));

beforeAll(async () => {
  await upstream.start();
  bridge = await startBridge({
    upstreamUrl: upstream.url,
    upstreamProtocol: "connect",
    token: TOKEN,
    host: "127.0.0.1",
    port: 0,
    onCall: (method) => bridgeCalls.push(method),
  });
});

afterEach(() => {
  upstream.impl = {};
  upstream.calls.length = 0;
});

afterAll(async () => {
  await bridge?.close();
  await upstream.close();
});

describe("the gRPC bridge", () => {
  it("forwards a unary call with the bridge's bearer token instead of the client's, and the client's metadata", async () => {
    upstream.impl = {
      cancelWait: (request) => {
        expect(request.waitId).toBe("w-1");
        return {};
      },
    };
    await client().cancelWait(
      { sessionId: SESSION_ID, waitId: "w-1" },
      { headers: { authorization: "Bearer the-clients-own", "x-trace-id": "trace-1" }, timeoutMs: WAIT_MS },
    );
    expect(upstream.calls).toHaveLength(1);
    const [call] = upstream.calls;
    expect(call!.method).toBe("CancelWait");
    expect(call!.header.get("authorization")).toBe(`Bearer ${TOKEN}`);
    expect(call!.header.get("x-trace-id")).toBe("trace-1");
    expect(call!.header.get("content-type")).toBe("application/proto"); // Connect, binary, upstream
    expect(bridgeCalls).toContain("CancelWait");
  });

  it("passes an upstream error to the client with its code and message", async () => {
    upstream.impl = {
      execute: async function* () {
        yield { event: { case: "started", value: { executionId: "e-1", cellId: "1" } } };
        throw new ConnectError(`unknown code-mode session ${SESSION_ID}`, Code.NotFound);
      },
      wait: () => {
        throw new ConnectError("exec cell 1 already has an active observer", Code.FailedPrecondition);
      },
    };
    const unary = await client()
      .wait({ sessionId: SESSION_ID, cellId: "1", waitId: "w", yieldTimeMs: 1n }, { timeoutMs: WAIT_MS })
      .catch((e: unknown) => ConnectError.from(e));
    expect(unary).toBeInstanceOf(ConnectError);
    expect((unary as ConnectError).code).toBe(Code.FailedPrecondition);
    expect((unary as ConnectError).rawMessage).toBe("exec cell 1 already has an active observer");

    const events: string[] = [];
    const streamed = await (async () => {
      for await (const event of client().execute({ sessionId: SESSION_ID, executionId: "e-1", source: "" }, { timeoutMs: WAIT_MS })) {
        events.push(event.event.case ?? "none");
      }
    })().catch((e: unknown) => ConnectError.from(e));
    expect(events).toEqual(["started"]);
    expect(streamed).toBeInstanceOf(ConnectError);
    expect((streamed as ConnectError).code).toBe(Code.NotFound);
    expect((streamed as ConnectError).rawMessage).toBe(`unknown code-mode session ${SESSION_ID}`);
  });

  it("sends a server stream's response headers as soon as the upstream's arrive, before any message", async () => {
    const release = deferred();
    upstream.impl = {
      subscribeToToolCalls: async function* (_request, ctx) {
        ctx.responseHeader.set("x-subscription", "registered");
        ctx.values.get(commitHeadersKey)?.(ctx.responseHeader); // a host's readiness signal
        await release.promise;
        yield { sessionId: SESSION_ID, invocationId: "i-1", sequence: 1n };
      },
    };
    const headers = deferred<Headers>();
    const lease = new AbortController();
    const calls = client()
      .subscribeToToolCalls({ sessionId: SESSION_ID }, { signal: lease.signal, onHeader: (h) => headers.resolve(h) })
      [Symbol.asyncIterator]();
    const first = calls.next();
    try {
      const header = await withTimeout(headers.promise, WAIT_MS, "the subscription's response headers");
      expect(header.get("x-subscription")).toBe("registered");
      release.resolve(); // only now may a message exist
      const call = await withTimeout(first, WAIT_MS, "the first ToolCall");
      expect(call.value?.invocationId).toBe("i-1");
    } finally {
      release.resolve();
      lease.abort();
    }
  });

  it("asks the upstream for heartbeats on OpenSession, SubscribeToToolCalls and Execute, and never passes one to the client", async () => {
    // byok-edge's heartbeats: an event-less SessionEvent or ExecuteEvent, a ToolCall without an invocation id.
    upstream.impl = {
      openSession: async function* () {
        yield {};
        yield { event: { case: "opened", value: { sessionId: SESSION_ID } } };
        yield {};
        yield { event: { case: "cellClosed", value: { cellId: "1" } } };
        yield {};
      },
      subscribeToToolCalls: async function* () {
        yield {};
        yield { sessionId: SESSION_ID, invocationId: "i-1", sequence: 1n };
        yield {};
      },
      execute: async function* () {
        yield {};
        yield { event: { case: "started", value: { cellId: "1" } } };
        yield {};
        yield { event: { case: "outcome", value: { cellId: "1" } } };
        yield {};
      },
      cancelWait: () => ({}),
    };
    const drain = async <T>(stream: AsyncIterable<T>): Promise<T[]> => {
      const seen: T[] = [];
      for await (const message of stream) seen.push(message);
      return seen;
    };
    const events = await withTimeout(drain(client().openSession({}, { timeoutMs: WAIT_MS })), WAIT_MS, "the OpenSession stream");
    expect(events.map((e) => e.event.case)).toEqual(["opened", "cellClosed"]);
    const calls = await withTimeout(
      drain(client().subscribeToToolCalls({ sessionId: SESSION_ID }, { timeoutMs: WAIT_MS })),
      WAIT_MS,
      "the SubscribeToToolCalls stream",
    );
    expect(calls.map((c) => c.invocationId)).toEqual(["i-1"]);
    const request = { sessionId: SESSION_ID, executionId: "e-1", toolCallId: "call-1", source: "text(1)" };
    const executed = await withTimeout(drain(client().execute(request, { timeoutMs: WAIT_MS })), WAIT_MS, "the Execute stream");
    expect(executed.map((e) => e.event.case)).toEqual(["started", "outcome"]);
    await client().cancelWait({ sessionId: SESSION_ID, waitId: "w-beat" }, { timeoutMs: WAIT_MS });
    expect(upstream.calls.map((call) => [call.method, call.header.get("x-byok-heartbeat")])).toEqual([
      ["OpenSession", "on"],
      ["SubscribeToToolCalls", "on"],
      ["Execute", "on"],
      ["CancelWait", null],
    ]);
  });

  it("drops the upstream stream when the client drops its stream", async () => {
    const upstreamAborted = deferred();
    upstream.impl = {
      openSession: async function* (_request, ctx) {
        yield { event: { case: "opened", value: { sessionId: SESSION_ID } } };
        await abortedPromise(ctx);
        upstreamAborted.resolve();
      },
    };
    const lease = new AbortController();
    const events = client().openSession({}, { signal: lease.signal })[Symbol.asyncIterator]();
    const opened = await withTimeout(events.next(), WAIT_MS, "the opened event");
    expect(opened.value?.event.case).toBe("opened");
    lease.abort(); // Codex drops the lease
    await withTimeout(upstreamAborted.promise, WAIT_MS, "the upstream OpenSession to see its client go");
    await events.next().catch(() => {});
  });

  it("cancels upstream, by its id, a Wait whose client went away, and only such a Wait", async () => {
    const waiting = deferred();
    const cancelled = deferred<{ sessionId: string; waitId: string }>();
    upstream.impl = {
      wait: async (request, ctx) => {
        if (request.waitId === "w-answered") return {};
        waiting.resolve();
        await abortedPromise(ctx);
        return {};
      },
      cancelWait: (request) => {
        cancelled.resolve({ sessionId: request.sessionId, waitId: request.waitId });
        return {};
      },
    };
    await client().wait({ sessionId: SESSION_ID, cellId: "1", waitId: "w-answered", yieldTimeMs: 1n }, { timeoutMs: WAIT_MS });
    const caller = new AbortController();
    const dropped = client().wait(
      { sessionId: SESSION_ID, cellId: "1", waitId: "w-dropped", yieldTimeMs: 60_000n },
      { signal: caller.signal },
    );
    dropped.catch(() => {});
    await withTimeout(waiting.promise, WAIT_MS, "the Wait upstream");
    caller.abort(); // Codex resets the Wait's stream
    expect(await withTimeout(cancelled.promise, WAIT_MS, "a CancelWait upstream")).toEqual({ sessionId: SESSION_ID, waitId: "w-dropped" });
    expect(upstream.calls.map((call) => call.method)).toEqual(["Wait", "Wait", "CancelWait"]);
    expect(upstream.calls[2]?.header.get("authorization")).toBe(`Bearer ${TOKEN}`);
  });

  it("passes a CompleteToolCall's reply to the client before the session's messages the upstream sent meanwhile", async () => {
    const accepted = deferred();
    const outcomeSent = deferred();
    upstream.impl = {
      // As a cell that goes on as soon as its tool's completion is accepted: its outcome leaves first.
      execute: async function* () {
        yield { event: { case: "started", value: { executionId: "e-1", cellId: "1" } } };
        await accepted.promise;
        yield { event: { case: "outcome", value: { cellId: "1", outcome: { case: "completed", value: {} } } } };
        outcomeSent.resolve();
      },
      completeToolCall: async () => {
        accepted.resolve();
        await outcomeSent.promise;
        return {};
      },
    };
    const seen: string[] = [];
    const started = deferred();
    const executed = (async () => {
      for await (const event of client().execute({ sessionId: SESSION_ID, executionId: "e-1", source: "" }, { timeoutMs: WAIT_MS })) {
        seen.push(event.event.case ?? "none");
        if (event.event.case === "started") started.resolve();
      }
    })();
    await withTimeout(started.promise, WAIT_MS, "the Execute's started event");
    const completion = {
      sessionId: SESSION_ID.toUpperCase(),
      invocationId: "i-1",
      outcome: { case: "failed" as const, value: { message: "m" } },
    };
    await client()
      .completeToolCall(completion, { timeoutMs: WAIT_MS })
      .then(() => seen.push("reply"));
    await withTimeout(executed, WAIT_MS, "the Execute stream's end");
    expect(seen).toEqual(["started", "reply", "outcome"]);
  });

  it("gives the upstream the client's deadline", async () => {
    let seen: number | undefined;
    upstream.impl = {
      wait: (_request, ctx): WaitResponse | Record<string, never> => {
        seen = ctx.timeoutMs();
        return {};
      },
    };
    await client().wait({ sessionId: SESSION_ID, cellId: "1", waitId: "w-2", yieldTimeMs: 1n }, { timeoutMs: 30_000 });
    expect(seen).toBeGreaterThan(25_000);
    expect(seen).toBeLessThanOrEqual(30_000);
  });

  it("ends a call past its deadline on both sides", async () => {
    const upstreamAborted = deferred();
    upstream.impl = {
      wait: async (_request, ctx) => {
        await abortedPromise(ctx);
        upstreamAborted.resolve();
        return {};
      },
    };
    const error = await client()
      .wait({ sessionId: SESSION_ID, cellId: "1", waitId: "w-3", yieldTimeMs: 60_000n }, { timeoutMs: 300 })
      .catch((e: unknown) => ConnectError.from(e));
    expect((error as ConnectError).code).toBe(Code.DeadlineExceeded);
    await withTimeout(upstreamAborted.promise, WAIT_MS, "the upstream Wait to be ended by the deadline");
  });

  it("keeps fields its schema does not know, as Codex sends in OpenSessionRequest", async () => {
    let received: OpenSessionRequest | undefined;
    upstream.impl = {
      openSession: async function* (request) {
        received = request;
        yield { event: { case: "opened", value: { sessionId: SESSION_ID } } };
      },
    };
    // Field 3 (varint 1): unknown to this schema.
    const request = fromBinary(OpenSessionRequestSchema, new Uint8Array([0x18, 0x01]));
    for await (const _ of client().openSession(request, { timeoutMs: WAIT_MS })) {
      // drain
    }
    expect(received?.$unknown?.map((field) => field.no)).toEqual([3]);
  });
});

describe("the grpc-bridge command", () => {
  it("prints the URL to give Codex, forwards with the token from --token-env, and never prints the token", async () => {
    upstream.impl = { cancelWait: () => ({}) };
    const entry = resolve(import.meta.dirname, "../../../bridge/grpc-bridge.ts");
    const child = spawn(
      process.execPath,
      [entry, "--upstream", upstream.url, "--listen", "127.0.0.1:0", "--token-env", "BRIDGE_TEST_TOKEN"],
      {
        env: { ...process.env, BRIDGE_TEST_TOKEN: TOKEN },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    let output = "";
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    try {
      const lines = createInterface({ input: child.stdout });
      lines.on("line", (line) => (output += `${line}\n`));
      const url = await withTimeout(
        new Promise<string>((done) => lines.once("line", done)),
        15_000,
        `the bridge's URL line (output so far: ${output})`,
      );
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const viaCli = createClient(CodeModeHost, createGrpcTransport({ baseUrl: url }));
      await viaCli.cancelWait({ sessionId: SESSION_ID, waitId: "w-cli" }, { timeoutMs: WAIT_MS });
      expect(upstream.calls.at(-1)?.header.get("authorization")).toBe(`Bearer ${TOKEN}`);
      process.kill(-child.pid!, "SIGTERM");
      expect(await withTimeout(exited, WAIT_MS, "the bridge to exit on SIGTERM")).toBe(0);
      expect(output).not.toContain(TOKEN);
      expect(output).toContain("BRIDGE_TEST_TOKEN");
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
    }
  });
});
