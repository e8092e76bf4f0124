// Code-mode figures of `npm run bench` (docs/benchmarks.md#code-mode): the same
// three measurements against byok-edge (through `wrangler dev`, Connect over
// HTTP/1.1) and against Codex's reference host (native gRPC), in one run:
//   (f) cell start: Execute sent → `started` event;
//   (g) first output: Execute sent → the outcome carrying text("x");
//   (h) tool round trip from inside a cell: (a cell making N sequential calls −
//       a cell making none) ÷ N, answered at once by a subscription in this process.
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { create, toJsonString } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import {
  CodeModeHost,
  type ExecuteEvent,
  ExecuteEventSchema,
  ToolKind,
  ToolDefinitionSchema,
} from "../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { findReferenceBinaries } from "../scripts/codex-cache.ts";
import { startReferenceHost } from "../test/differential/support/reference-host.ts";

type HostClient = Client<typeof CodeModeHost>;

interface CodeModeFigures {
  /** A unary Wait on a cell that does not exist: the transport alone, for comparison. */
  bareCall: number[];
  cellStart: number[];
  firstOutput: number[];
  toolRoundTrip: number[];
}

const ECHO = create(ToolDefinitionSchema, {
  name: "echo",
  toolName: { name: "echo" },
  description: "returns its input",
  kind: ToolKind.FUNCTION,
});
const CALLS_PER_CELL = 20;
const CALL_TIMEOUT_MS = 30_000;

/** One session on a host, with a subscription that answers every echo call at once. */
async function withSession<T>(client: HostClient, body: (sessionId: string) => Promise<T>): Promise<T> {
  const lease = new AbortController();
  const events = client.openSession({}, { signal: lease.signal })[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done || first.value.event.case !== "opened") throw new Error("OpenSession did not answer `opened` first");
  const sessionId = first.value.event.value.sessionId;
  // Notifications would hold a host slot; none are sent here, but drain the lease anyway.
  const drain = (async () => {
    for (;;) if ((await events.next()).done) return;
  })().catch(() => {});
  const subscription = new AbortController();
  const calls = client.subscribeToToolCalls({ sessionId, toolNames: [] }, { signal: subscription.signal });
  const answering = (async () => {
    for await (const call of calls) {
      await client.completeToolCall({
        sessionId,
        invocationId: call.invocationId,
        outcome: { case: "succeeded", value: { outputJson: call.inputJson ?? new TextEncoder().encode("{}") } },
      });
    }
  })().catch(() => {});
  try {
    return await body(sessionId);
  } finally {
    subscription.abort();
    await client.closeSession({ sessionId }).catch(() => {});
    lease.abort();
    await Promise.allSettled([answering, drain]);
  }
}

async function execute(
  client: HostClient,
  sessionId: string,
  source: string,
): Promise<{ started: number; outcome: number; event: ExecuteEvent }> {
  const t0 = performance.now();
  let started = Number.NaN;
  let last: ExecuteEvent | undefined;
  for await (const event of client.execute(
    { sessionId, executionId: randomUUID(), toolCallId: "bench", source, enabledTools: [ECHO], yieldTimeMs: 20_000n },
    { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) },
  )) {
    if (event.event.case === "started") started = performance.now() - t0;
    last = event;
  }
  if (last?.event.case !== "outcome") throw new Error("Execute ended without an outcome");
  const outcome = last.event.value;
  if (outcome.outcome.case !== "completed" || outcome.outcome.value.errorText)
    throw new Error(`bench cell did not complete cleanly: ${toJsonString(ExecuteEventSchema, last)}`);
  return { started, outcome: performance.now() - t0, event: last };
}

/** `runs` cells of each kind on one session of this host, after one unmeasured warm-up of each. */
async function measureHost(transport: Transport, runs: number): Promise<CodeModeFigures> {
  const client = createClient(CodeModeHost, transport);
  const loop = `for (let i = 0; i < ${CALLS_PER_CELL}; i++) await tools.echo({ i }); text("done");`;
  return withSession(client, async (sessionId) => {
    const figures: CodeModeFigures = { bareCall: [], cellStart: [], firstOutput: [], toolRoundTrip: [] };
    await execute(client, sessionId, `text("x")`);
    await execute(client, sessionId, loop);
    for (let r = 0; r < runs; r++) {
      const t0 = performance.now();
      await client.wait({ sessionId, cellId: "missing", waitId: randomUUID(), yieldTimeMs: 1n });
      figures.bareCall.push(performance.now() - t0);
      const plain = await execute(client, sessionId, `text("x")`);
      figures.cellStart.push(plain.started);
      figures.firstOutput.push(plain.outcome);
      const calls = await execute(client, sessionId, loop);
      figures.toolRoundTrip.push((calls.outcome - plain.outcome) / CALLS_PER_CELL);
    }
    return figures;
  });
}

function byokTransport(baseUrl: string, token: string): Transport {
  const bearer: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
  return createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: true, interceptors: [bearer] });
}

/** The cached reference host (`npm run codex:fetch`), undefined when it is not there. */
async function startReference(): Promise<{ transport: Transport; stop: () => Promise<void> } | undefined> {
  const binaries = findReferenceBinaries();
  if (binaries === undefined) return undefined;
  const host = await startReferenceHost(binaries.host);
  return { transport: createGrpcTransport({ baseUrl: host.baseUrl }), stop: host.stop };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN);
}

/** The code-mode table of `npm run bench`: byok-edge (wrangler dev) against the reference host, same run. */
export async function codeModeReport(baseUrl: string, token: string, runs: number): Promise<string> {
  const reference = await startReference();
  try {
    const edge = await measureHost(byokTransport(baseUrl, token), runs);
    const ref = reference ? await measureHost(reference.transport, runs) : undefined;
    const rows: [string, keyof CodeModeFigures][] = [
      ["(e') bare unary call: Wait on a missing cell, median", "bareCall"],
      ["(f) cell start: Execute → started, median", "cellStart"],
      ['(g) first output: Execute → outcome with text("x"), median', "firstOutput"],
      ["(h) tool round trip from inside a cell, median", "toolRoundTrip"],
    ];
    const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
    const lines = rows.map(([name, key]) => {
      const e = median(edge[key]);
      const r = ref ? median(ref[key]) : Number.NaN;
      return `| ${name} | ${fmt(e)} | ${ref ? fmt(r) : "n/a"} | ${ref ? `${(e / r).toFixed(2)}×` : "n/a"} |`;
    });
    const note = reference ? `${runs} cells of each kind per host` : "reference host not fetched (npm run codex:fetch): byok-edge only";
    return [`${note}`, "| figure | byok-edge | reference | ratio |", "|---|---:|---:|---:|", ...lines].join("\n");
  } finally {
    await reference?.stop();
  }
}
