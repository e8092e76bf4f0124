// The gRPC bridge in front of the differential suite's real hosts (its global
// setup starts them): the reference codex-code-mode-host (upstream native gRPC)
// and byok-edge under `wrangler dev` (upstream Connect, and gRPC-web, with the
// bearer token). A native gRPC client plays Codex's part: it subscribes, waits
// for the subscription's headers, then runs a cell that calls a tool.
import { randomUUID } from "node:crypto";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { UpstreamProtocol } from "../../../bridge/options.ts";
import { type Bridge, startBridge } from "../../../bridge/server.ts";
import { CodeModeHost, type ExecuteEvent, ToolKind } from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { deferred, withTimeout } from "../../support/deferred.ts";
import { pollUntil } from "../support/bounds.ts";

const WAIT_MS = 10_000;
/** "At once": far below the dropped Wait's own 60 s. */
const DROPPED_WAIT_NOTICED_WITHIN_MS = 5_000;

interface Upstream {
  name: string;
  url: string;
  protocol: UpstreamProtocol;
  token: string | undefined;
  /** A Durable Object may take up to its lease TTL to notice a dropped lease (docs/code-mode.md#platform-differences). */
  leaseDropNoticedWithinMs: number;
}

const edgeUrl = inject("codeModeEdgeUrl");
const edgeToken = inject("codeModeEdgeToken");
const upstreams: Upstream[] = [
  { name: "the reference host", url: inject("codeModeReferenceUrl"), protocol: "grpc", token: undefined, leaseDropNoticedWithinMs: 5_000 },
  { name: "byok-edge over Connect", url: edgeUrl, protocol: "connect", token: edgeToken, leaseDropNoticedWithinMs: 8_000 },
  { name: "byok-edge over gRPC-web", url: edgeUrl, protocol: "grpc-web", token: edgeToken, leaseDropNoticedWithinMs: 8_000 },
];

// Each test has its own session: all of them run at once, on every upstream (most of their time is the hosts' timers).
describe.each(upstreams)("the gRPC bridge in front of $name", { concurrent: true }, (upstream) => {
  let bridge: Bridge;
  const client = () => createClient(CodeModeHost, createGrpcTransport({ baseUrl: bridge.url }));

  /** A session opened through the bridge, its `opened` event read; aborting `lease` drops it. */
  async function openLease() {
    const lease = new AbortController();
    const events = client().openSession({}, { signal: lease.signal })[Symbol.asyncIterator]();
    try {
      const opened = (await withTimeout(events.next(), WAIT_MS, "the opened event")).value;
      if (opened?.event.case !== "opened") throw new Error(`the lease's first event is ${opened?.event.case}, not opened`);
      return { lease, events, sessionId: opened.event.value.sessionId };
    } catch (error) {
      lease.abort();
      throw error;
    }
  }

  const test = it.skipIf(!upstream.url); // a target the global setup did not start

  beforeAll(async () => {
    if (!upstream.url) return;
    bridge = await startBridge({
      upstreamUrl: upstream.url,
      upstreamProtocol: upstream.protocol,
      token: upstream.token,
      host: "127.0.0.1",
      port: 0,
    });
  });

  afterAll(async () => {
    await bridge?.close();
  });

  test("runs a cell that calls a tool over a subscription whose headers arrived before the Execute", async () => {
    const { lease, sessionId } = await openLease();
    try {
      const subscribed = deferred();
      const calls = client()
        .subscribeToToolCalls({ sessionId }, { signal: lease.signal, onHeader: () => subscribed.resolve() })
        [Symbol.asyncIterator]();
      const firstCall = calls.next();
      await withTimeout(subscribed.promise, WAIT_MS, "the subscription's headers"); // Codex's readiness signal

      const execute = (async () => {
        const seen: ExecuteEvent[] = [];
        const source = 'const r = await tools.echo({ value: "via the bridge" }); text(r.value)';
        const enabledTools = [{ name: "echo", toolName: { name: "echo" }, description: "echo", kind: ToolKind.FUNCTION }];
        for await (const event of client().execute({
          sessionId,
          executionId: "e-1",
          toolCallId: "call-1",
          source,
          enabledTools,
          yieldTimeMs: 5_000n,
        })) {
          seen.push(event);
        }
        return seen;
      })();
      const call = (await withTimeout(firstCall, WAIT_MS, "the ToolCall")).value!;
      expect(call.toolName?.name).toBe("echo");
      expect(new TextDecoder().decode(call.inputJson)).toBe('{"value":"via the bridge"}');
      await client().completeToolCall({
        sessionId,
        invocationId: call.invocationId,
        outcome: { case: "succeeded", value: { outputJson: call.inputJson! } },
      });
      const seen = await withTimeout(execute, WAIT_MS, "the Execute stream to end");
      expect(seen.map((e) => e.event.case)).toEqual(["started", "outcome"]);
      const outcome = seen[1]!.event.case === "outcome" ? seen[1]!.event.value : undefined;
      expect(outcome?.outcome.case).toBe("completed");
      expect(outcome?.contentItems.map((item) => (item.item.case === "text" ? item.item.value.text : ""))).toEqual(["via the bridge"]);
    } finally {
      lease.abort();
    }
  });

  test("never passes a heartbeat to the client, on the lease, an idle subscription or a quiet Execute", async () => {
    const { lease, events, sessionId } = await openLease();
    try {
      const leaseSeen: (string | undefined)[] = [];
      void (async () => {
        for (let next = await events.next(); !next.done; next = await events.next()) leaseSeen.push(next.value.event.case);
      })().catch(() => {});
      const subscribed = deferred();
      const callsSeen: string[] = [];
      void (async () => {
        const calls = client().subscribeToToolCalls({ sessionId }, { signal: lease.signal, onHeader: () => subscribed.resolve() });
        for await (const call of calls) callsSeen.push(call.invocationId);
      })().catch(() => {});
      await withTimeout(subscribed.promise, WAIT_MS, "the subscription's headers");
      // The cell's own 2.5 s timer: byok-edge beats every second on all three streams meanwhile.
      const seen: (string | undefined)[] = [];
      const source = 'await new Promise((resolve) => setTimeout(resolve, 2500)); text("quiet")';
      const execute = client().execute({ sessionId, executionId: "e-quiet", toolCallId: "call-1", source, yieldTimeMs: 10_000n });
      await withTimeout(
        (async () => {
          for await (const event of execute) seen.push(event.event.case);
        })(),
        WAIT_MS,
        "the Execute stream to end",
      );
      expect(seen).toEqual(["started", "outcome"]);
      expect(callsSeen).toEqual([]);
      expect(leaseSeen.every((event) => event !== undefined)).toBe(true);
    } finally {
      lease.abort();
    }
  });

  test("passes the host's own error codes and messages", async () => {
    const sessionId = "5d3f6a8e-0f1b-4c6e-9a51-0d2b7c9e4f11";
    const error = await client()
      .wait({ sessionId, cellId: "1", waitId: "w-1", yieldTimeMs: 1n }, { timeoutMs: WAIT_MS })
      .catch((e: unknown) => ConnectError.from(e));
    expect((error as ConnectError).code).toBe(Code.NotFound);
    expect((error as ConnectError).rawMessage).toBe(`unknown code-mode session ${sessionId}`);
  });

  // Only a gRPC upstream answers a refusal trailers-only; byok-edge's connect-es (Connect or gRPC-web) sends headers first,
  // and so does the bridge then (docs/code-mode.md#grpc-bridge).
  it.skipIf(!upstream.url || upstream.protocol !== "grpc")(
    "answers a refused stream trailers-only, as the host does: not_found and no headers before it",
    async () => {
      const sessionId = "0c6f1f5e-3b8a-4a59-b1a2-6f7d9e2c4b81";
      let headers = false;
      const error = await (async () => {
        for await (const _ of client().subscribeToToolCalls({ sessionId }, { timeoutMs: WAIT_MS, onHeader: () => (headers = true) })) {
          // none expected
        }
      })().catch((e: unknown) => ConnectError.from(e));
      expect((error as ConnectError).code).toBe(Code.NotFound);
      expect((error as ConnectError).rawMessage).toBe(`unknown code-mode session ${sessionId}`);
      expect(headers).toBe(false);
    },
  );

  test("retires at once the observer of a Wait whose client went away, so the next Wait observes the cell", async () => {
    const { lease, sessionId } = await openLease();
    try {
      const source = "await new Promise(() => {});";
      for await (const _ of client().execute({ sessionId, executionId: "e-forever", toolCallId: "call-1", source, yieldTimeMs: 1n })) {
        // started, then yielded
      }
      const wait = (yieldTimeMs: bigint, signal?: AbortSignal) =>
        client()
          .wait({ sessionId, cellId: "1", waitId: randomUUID(), yieldTimeMs }, { signal })
          .then((response) => response.state.value?.outcome.case)
          .catch((e: unknown) => ConnectError.from(e).rawMessage);
      // Two Waits together: the one refused tells which observes (the wire has no admission signal for a Wait).
      const ACTIVE = "exec cell 1 already has an active observer";
      const callers = [new AbortController(), new AbortController()];
      const waits = callers.map((caller) => wait(60_000n, caller.signal));
      const refused = await withTimeout(
        Promise.race(waits.map((w, index) => w.then((outcome) => ({ index, outcome })))),
        WAIT_MS,
        "one of two Waits to be refused",
      );
      expect(refused.outcome).toBe(ACTIVE);
      callers[1 - refused.index]!.abort(); // as Codex drops a Wait: its HTTP/2 stream is reset
      // Refused only until the host has retired the dropped Wait, long before its 60 s.
      const next = await pollUntil(
        async () => {
          const outcome = await wait(1n);
          return outcome === ACTIVE ? undefined : outcome;
        },
        "a Wait after the dropped one",
        DROPPED_WAIT_NOTICED_WITHIN_MS,
      );
      expect(next).toBe("yielded");
    } finally {
      lease.abort();
    }
  });

  test("ends the session when the client drops its lease", { timeout: 30_000 }, async () => {
    const { lease, sessionId } = await openLease();
    lease.abort();
    // The host retires the session once it sees its lease go; each probe is a bounded call.
    const deadline = Date.now() + upstream.leaseDropNoticedWithinMs;
    let last: ConnectError | undefined;
    while (Date.now() < deadline) {
      last = await client()
        .cancelWait({ sessionId, waitId: "probe" }, { timeoutMs: WAIT_MS })
        .then(() => undefined)
        .catch((e: unknown) => ConnectError.from(e));
      if (last) break;
    }
    expect(last?.code).toBe(Code.NotFound);
    expect(last?.rawMessage).toBe(`unknown code-mode session ${sessionId}`);
  });
});
