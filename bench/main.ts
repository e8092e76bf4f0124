// Turn latency benchmark (a measurement, not a test).
//
// One process holds the timing-aware fake provider (bench/fake-stream-server.ts)
// and the client, so provider send times and client receive times share one
// performance.now() clock. The worker runs in `wrangler dev` with
// BYOK_BENCH_ROUTES=true. Each run does, one after the other:
//   byok-edge:   RunSSE + BidiAppend(run_request) → worker → router DO →
//                conversation DO → provider; text deltas back as Connect frames;
//                K client-heartbeat BidiAppends timed while the turn streams.
//   passthrough: POST /__bench/passthrough → worker fetches the provider and
//                streams the bytes back; K POST /__bench/echo timed while it streams.
// Figures (per side, then byok-edge / passthrough):
//   (a) provider's first body byte (chunk 0 written) → client has chunk 0's text;
//   (b) per chunk (1..N-1): client receive time − provider send time;
//   (c) request → 200 of a BidiAppend (byok-edge) or an echo (passthrough);
//   (d) client sends the request → provider receives its request (informational).
// Hosted users (bench/hosted-user.ts): the same byok-edge turn as a team member on a
// stored credential, compared with the single-user turn of the same run, and (e)
// unary round trips (bearer check + model list) of both principals.
import { randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AgentClientMessageSchema, AgentServerMessageSchema, type AgentClientMessage } from "../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { EnvelopeDecoder, encodeEnvelope, FLAG_END_STREAM, FLAG_MESSAGE } from "../src/proto/connect/envelope.ts";
import { toHex } from "../src/proto/bytes.ts";
import {
  installExitHandlers,
  isExiting,
  makeTempDir,
  onCleanup,
  PROJECT_ROOT,
  removeTempDir,
  runCleanups,
  startWranglerDev,
  type WranglerDev,
} from "../e2e/support/wrangler-dev.ts";
import { KvClient } from "../e2e/support/kv-client.ts";
import { createHostedUser, type HostedUser, unaryRoundTrips } from "./hosted-user.ts";
import { codeModeReport } from "./code-mode.ts";
import { CHUNK_MARKER, startStreamServer, type StreamPlan, type StreamRecord, type StreamServer } from "./fake-stream-server.ts";

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    chunks: { type: "string", default: "50" },
    interval: { type: "string", default: "20" },
    appends: { type: "string", default: "10" },
    warmup: { type: "string", default: "1" },
  },
});
const RUNS = positiveInt(opts.runs, "runs");
const PLAN: StreamPlan = { chunks: positiveInt(opts.chunks, "chunks"), intervalMs: positiveInt(opts.interval, "interval") };
const APPENDS = opts.appends === "0" ? 0 : positiveInt(opts.appends, "appends"); // 0: streaming figures without concurrent appends
const WARMUP = Number(opts.warmup) || 0;
const MODEL_NAME = "bench-model";
const RUN_TIMEOUT_MS = 30_000 + PLAN.chunks * PLAN.intervalMs;

interface Sample {
  firstByteToFirstDelta: number;
  perChunk: number[];
  appendRtt: number[];
  requestToProvider: number;
  /** (e) unary round trips with this side's token; empty for the passthrough. */
  unaryRtt: number[];
}

function positiveInt(value: string | undefined, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer`);
  return n;
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil(q * sorted.length) - 1; // nearest rank
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}
const median = (v: number[]) => quantile(v, 0.5);
const p95 = (v: number[]) => quantile(v, 0.95);

/** Finds chunk markers as text accumulates; a marker split across reads is found on the next read. */
class MarkerScanner {
  readonly recvAt: number[] = [];
  #text = "";
  #scanFrom = 0;
  push(text: string, at: number): void {
    this.#text += text;
    const re = new RegExp(CHUNK_MARKER.source, "g");
    re.lastIndex = this.#scanFrom;
    for (let m = re.exec(this.#text); m; m = re.exec(this.#text)) {
      const i = Number(m[1]);
      this.recvAt[i] ??= at;
      this.#scanFrom = re.lastIndex;
    }
  }
  get first(): Promise<void> {
    return this.#first.promise;
  }
  readonly #first = Promise.withResolvers<void>();
  notifyIfStarted(): void {
    if (this.recvAt[0] !== undefined) this.#first.resolve();
  }
  fail(error: unknown): void {
    this.#first.reject(error);
  }
}

function headers(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...extra };
}

function appendBody(requestId: string, seqno: number, message: AgentClientMessage): Uint8Array {
  return toBinary(
    BidiAppendRequestSchema,
    create(BidiAppendRequestSchema, {
      requestId: { requestId },
      appendSeqno: BigInt(seqno),
      data: toHex(toBinary(AgentClientMessageSchema, message)),
    }),
  );
}

/** Requests retried because a kept-alive connection had been closed by the server. */
let staleRetries = 0;

/**
 * POST with one retry when the pooled connection turns out to be closed (the
 * keep-alive race: the server closed it as we reused it; nothing was processed).
 * `timing.start` is the start of the attempt that succeeded. Retrying an append
 * is safe: the worker drops a seqno it has already seen.
 */
async function post(
  url: string,
  token: string,
  body: Uint8Array | string,
  contentType: string,
  signal: AbortSignal,
  timing: { start?: number } = {},
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    timing.start = performance.now();
    try {
      return await fetch(url, { method: "POST", headers: headers(token, { "content-type": contentType }), body, signal });
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (attempt >= 2 || signal.aborted || code !== "UND_ERR_SOCKET") throw error;
      staleRetries++;
    }
  }
}

/** K sequential requests once the stream has started; round-trip times in ms. */
async function timedRequests(started: Promise<void>, send: (timing: { start?: number }) => Promise<Response>): Promise<number[]> {
  await started;
  const rtts: number[] = [];
  for (let k = 1; k <= APPENDS; k++) {
    const timing: { start?: number } = {};
    const res = await send(timing);
    await res.arrayBuffer();
    const t1 = performance.now();
    if (res.status !== 200) throw new Error(`timed request ${k} → ${res.status}`);
    rtts.push(t1 - timing.start!);
  }
  return rtts;
}

function summarize(record: StreamRecord, scanner: MarkerScanner, appendRtt: number[], sentAt: number, what: string): Sample {
  const n = record.plan.chunks;
  const missing = Array.from({ length: n }, (_, i) => i).filter((i) => scanner.recvAt[i] === undefined);
  if (missing.length > 0)
    throw new Error(`${what}: chunks never arrived: ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? "…" : ""}`);
  if (record.requestAt === undefined) throw new Error(`${what}: the provider never saw the request`);
  const perChunk: number[] = [];
  for (let i = 1; i < n; i++) perChunk.push(scanner.recvAt[i]! - record.sentAt[i]!);
  return {
    firstByteToFirstDelta: scanner.recvAt[0]! - record.sentAt[0]!,
    perChunk,
    appendRtt,
    requestToProvider: record.requestAt - sentAt,
    unaryRtt: [],
  };
}

async function byokTurn(dev: WranglerDev, server: StreamServer, token: string, model = MODEL_NAME): Promise<Sample> {
  const id = `b${randomUUID().replace(/-/g, "")}`;
  const record = server.prepare(id, PLAN);
  const requestId = randomUUID();
  const signal = AbortSignal.timeout(RUN_TIMEOUT_MS);
  const scanner = new MarkerScanner();

  const streamRes = post(
    `${dev.baseUrl}/agent.v1.AgentService/RunSSE`,
    token,
    encodeEnvelope(FLAG_MESSAGE, toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId }))),
    "application/connect+proto",
    signal,
  );
  const runRequest = create(AgentClientMessageSchema, {
    message: {
      case: "runRequest",
      value: {
        conversationId: randomUUID(),
        requestedModel: { modelId: model },
        action: {
          action: { case: "userMessageAction", value: { userMessage: { text: `bench:${id}`, messageId: randomUUID(), mode: 1 } } },
        },
      },
    },
  });
  let seqno = 0; // run_request, then heartbeats and KV replies in whatever order they are sent
  const append = (message: AgentClientMessage, timing?: { start?: number }) =>
    post(
      `${dev.baseUrl}/aiserver.v1.BidiService/BidiAppend`,
      token,
      appendBody(requestId, seqno++, message),
      "application/proto",
      signal,
      timing,
    );
  const sentAt = performance.now();
  const appendRes = await append(runRequest);
  if (appendRes.status !== 200) throw new Error(`BidiAppend(run_request) → ${appendRes.status}: ${await appendRes.text()}`);
  await appendRes.arrayBuffer();

  const heartbeat = create(AgentClientMessageSchema, { message: { case: "clientHeartbeat", value: {} } });
  const appends = timedRequests(scanner.first, (timing) => append(heartbeat, timing));
  appends.catch(() => {});
  // Like Cursor: acknowledge the conversation-state blobs, or the turn cannot end.
  const kv = new KvClient();
  const kvReplies: Promise<void>[] = [];

  try {
    const res = await streamRes;
    if (res.status !== 200 || !res.body) throw new Error(`RunSSE → ${res.status}: ${await res.text()}`);
    const decoder = new EnvelopeDecoder();
    let ended = false;
    for await (const bytes of res.body) {
      const at = performance.now();
      for (const envelope of decoder.push(bytes)) {
        if (envelope.flags & FLAG_END_STREAM) {
          const end = JSON.parse(new TextDecoder().decode(envelope.data)) as { error?: { code: string; message?: string } };
          if (end.error) throw new Error(`RunSSE ended with ${end.error.code}: ${end.error.message ?? ""}`);
          ended = true;
          continue;
        }
        const message = fromBinary(AgentServerMessageSchema, envelope.data);
        const reply = kv.reply(message);
        if (reply) {
          const sent = append(reply).then(async (r) => {
            if (r.status !== 200) throw new Error(`BidiAppend(kv reply) → ${r.status}: ${await r.text()}`);
            await r.arrayBuffer();
          });
          sent.catch(() => {}); // awaited after the stream
          kvReplies.push(sent);
        }
        if (message.message.case !== "interactionUpdate") continue;
        const update = message.message.value.message;
        if (update.case === "textDelta") scanner.push(update.value.text, at);
      }
      scanner.notifyIfStarted();
    }
    decoder.finish();
    if (!ended) throw new Error("RunSSE closed without an end-stream frame");
    await Promise.all(kvReplies);
  } catch (error) {
    scanner.fail(error);
    throw error;
  }
  return summarize(record, scanner, await appends, sentAt, "byok-edge");
}

async function passthroughRun(dev: WranglerDev, server: StreamServer, token: string): Promise<Sample> {
  const id = `p${randomUUID().replace(/-/g, "")}`;
  const record = server.prepare(id, PLAN);
  const signal = AbortSignal.timeout(RUN_TIMEOUT_MS);
  const scanner = new MarkerScanner();
  const upstreamBody = JSON.stringify({ model: "bench", stream: true, messages: [{ role: "user", content: `bench:${id}` }] });
  // The echo carries the same bytes as a heartbeat BidiAppend.
  const echoBody = appendBody(randomUUID(), 1, create(AgentClientMessageSchema, { message: { case: "clientHeartbeat", value: {} } }));

  const sentAt = performance.now();
  const res = await post(
    `${dev.baseUrl}/__bench/passthrough`,
    token,
    JSON.stringify({ url: `http://127.0.0.1:${server.port}/v1/chat/completions`, body: upstreamBody }),
    "application/json",
    signal,
  );
  if (res.status !== 200 || !res.body) throw new Error(`passthrough → ${res.status}: ${await res.text()}`);
  const echoes = timedRequests(scanner.first, (timing) =>
    post(`${dev.baseUrl}/__bench/echo`, token, echoBody, "application/proto", signal, timing),
  );
  echoes.catch(() => {});
  try {
    const text = new TextDecoder();
    for await (const bytes of res.body) {
      scanner.push(text.decode(bytes, { stream: true }), performance.now());
      scanner.notifyIfStarted();
    }
  } catch (error) {
    scanner.fail(error);
    throw error;
  }
  return summarize(record, scanner, await echoes, sentAt, "passthrough");
}

function machine(): Record<string, string> {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
  let wrangler = "unknown";
  try {
    wrangler = (JSON.parse(readFileSync(join(PROJECT_ROOT, "node_modules/wrangler/package.json"), "utf8")) as { version: string }).version;
  } catch {
    // leave unknown
  }
  // The workerd that wrangler runs: its own nested copy when it has one.
  let workerd = "unknown";
  for (const dir of ["node_modules/wrangler/node_modules/miniflare/node_modules", "node_modules/wrangler/node_modules", "node_modules"]) {
    try {
      workerd = (JSON.parse(readFileSync(join(PROJECT_ROOT, dir, "workerd/package.json"), "utf8")) as { version: string }).version;
      break;
    } catch {
      // try the next place
    }
  }
  let kernel = "unknown";
  try {
    kernel = execFileSync("uname", ["-sr"], { encoding: "utf8" }).trim();
  } catch {
    // leave unknown
  }
  return {
    cpu: model,
    cores: String(cpus().length),
    ram: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    wrangler,
    workerd,
    kernel,
  };
}

const fmt = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(2)} ms` : "n/a");
const ratio = (a: number, b: number) => (Number.isFinite(a) && b > 0 ? `${(a / b).toFixed(2)}×` : "n/a");

function report(byok: Sample[], pass: Sample[]): string {
  const rows: [string, (s: Sample[]) => number][] = [
    ["(a) provider first byte → client first text, median of runs", (s) => median(s.map((x) => x.firstByteToFirstDelta))],
    ["(b) added latency per chunk, median (all chunks 1..N-1)", (s) => median(s.flatMap((x) => x.perChunk))],
    ["(b) added latency per chunk, p95", (s) => p95(s.flatMap((x) => x.perChunk))],
    ["(c) append (echo) round trip, median", (s) => median(s.flatMap((x) => x.appendRtt))],
    ["(c) append (echo) round trip, p95", (s) => p95(s.flatMap((x) => x.appendRtt))],
    ["(d) client request → provider request, median of runs", (s) => median(s.map((x) => x.requestToProvider))],
  ];
  const lines = [
    "| figure | byok-edge | passthrough | difference | ratio |",
    "|---|---:|---:|---:|---:|",
    ...rows.map(([name, f]) => `| ${name} | ${fmt(f(byok))} | ${fmt(f(pass))} | ${fmt(f(byok) - f(pass))} | ${ratio(f(byok), f(pass))} |`),
  ];
  return lines.join("\n");
}

/** Hosted ÷ single-user, both measured in the same run. */
function hostedReport(local: Sample[], hosted: Sample[] | undefined, localUnary: number[], hostedUnary: number[]): string {
  const rows: [string, number, number][] = [["(e) unary AvailableModels round trip, median", median(localUnary), median(hostedUnary)]];
  rows.push(["(e) unary AvailableModels round trip, p95", p95(localUnary), p95(hostedUnary)]);
  if (hosted) {
    rows.unshift(
      [
        "(a) provider first byte → client first text, median of runs",
        median(local.map((x) => x.firstByteToFirstDelta)),
        median(hosted.map((x) => x.firstByteToFirstDelta)),
      ],
      ["(b) added latency per chunk, median", median(local.flatMap((x) => x.perChunk)), median(hosted.flatMap((x) => x.perChunk))],
      ["(c) BidiAppend round trip, median", median(local.flatMap((x) => x.appendRtt)), median(hosted.flatMap((x) => x.appendRtt))],
      ["(c) BidiAppend round trip, p95", p95(local.flatMap((x) => x.appendRtt)), p95(hosted.flatMap((x) => x.appendRtt))],
      [
        "(d) client request → provider request, median of runs",
        median(local.map((x) => x.requestToProvider)),
        median(hosted.map((x) => x.requestToProvider)),
      ],
    );
  }
  return [
    "| figure | hosted user | single user | difference | ratio |",
    "|---|---:|---:|---:|---:|",
    ...rows.map(([name, l, h]) => `| ${name} | ${fmt(h)} | ${fmt(l)} | ${fmt(h - l)} | ${ratio(h, l)} |`),
  ].join("\n");
}

function perRun(samples: Sample[]): string {
  return samples
    .map(
      (s, i) =>
        `  run ${i + 1}: a=${fmt(s.firstByteToFirstDelta)} b.median=${fmt(median(s.perChunk))} b.p95=${fmt(p95(s.perChunk))} c.median=${fmt(median(s.appendRtt))} d=${fmt(s.requestToProvider)}`,
    )
    .join("\n");
}

async function main(): Promise<number> {
  installExitHandlers();
  const started = performance.now();
  const loadAtStart = loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");
  const workDir = makeTempDir("byok-bench");
  onCleanup(() => removeTempDir(workDir));
  const server = await startStreamServer();
  onCleanup(() => server.close());
  const token = randomUUID();
  const adminToken = randomUUID();
  let dev: WranglerDev | undefined;
  try {
    dev = await startWranglerDev({
      workDir,
      migrateD1: true,
      vars: {
        BYOK_TOKEN: token,
        ADMIN_TOKEN: adminToken,
        KEY_ENCRYPTION_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
        BYOK_BENCH_ROUTES: "true",
        BYOK_ALLOW_PRIVATE_UPSTREAMS: "true",
        // Streams end with their turn, as before the continuation window, so turn times stay comparable.
        BYOK_CONTINUATION_WINDOW_MS: "0",
        BYOK_MODELS: JSON.stringify([
          {
            name: MODEL_NAME,
            provider: "openai-chat",
            base_url: `http://127.0.0.1:${server.port}/v1`,
            api_key: "sk-bench",
            model: "bench",
          },
        ]),
      },
    });
    console.log(
      `command: npm run bench -- --runs ${RUNS} --chunks ${PLAN.chunks} --interval ${PLAN.intervalMs} --appends ${APPENDS} --warmup ${WARMUP}`,
    );
    console.log(
      `wrangler dev ready on ${dev.baseUrl}; ${RUNS} runs of ${PLAN.chunks} chunks every ${PLAN.intervalMs} ms, ${APPENDS} timed appends per run, ${WARMUP} warm-up run(s)`,
    );
    const hostedUser: HostedUser = await createHostedUser(dev.baseUrl, adminToken, `http://127.0.0.1:${server.port}/v1`);
    if (!hostedUser.model) console.log("hosted user: this build does not serve the credentials API; only (e) is compared");
    for (let w = 0; w < WARMUP; w++) {
      await byokTurn(dev, server, token);
      if (hostedUser.model) await byokTurn(dev, server, hostedUser.token, hostedUser.model);
      await passthroughRun(dev, server, token);
      await unaryRoundTrips(dev.baseUrl, hostedUser.token, 2);
    }
    const byok: Sample[] = [];
    const hosted: Sample[] = [];
    const pass: Sample[] = [];
    const localUnary: number[] = [];
    const hostedUnary: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      byok.push(await byokTurn(dev, server, token));
      if (hostedUser.model) hosted.push(await byokTurn(dev, server, hostedUser.token, hostedUser.model));
      pass.push(await passthroughRun(dev, server, token));
      // Alternating, so a change in load falls on both principals alike.
      for (let k = 0; k < Math.max(APPENDS, 1); k++) {
        localUnary.push(...(await unaryRoundTrips(dev.baseUrl, token, 1)));
        hostedUnary.push(...(await unaryRoundTrips(dev.baseUrl, hostedUser.token, 1)));
      }
      process.stdout.write(`run ${r + 1}/${RUNS} done\n`);
    }
    console.log(`\nbyok-edge per run:\n${perRun(byok)}`);
    console.log(`passthrough per run:\n${perRun(pass)}`);
    console.log(`\n${report(byok, pass)}\n`);
    if (hostedUser.model) console.log(`hosted user per run:\n${perRun(hosted)}`);
    console.log(`\nhosted user vs single user:\n${hostedReport(byok, hostedUser.model ? hosted : undefined, localUnary, hostedUnary)}\n`);
    console.log(`\ncode mode, byok-edge vs the reference host:\n${await codeModeReport(dev.baseUrl, token, RUNS * 4)}\n`);
    const m = machine();
    if (staleRetries > 0)
      console.log(`(${staleRetries} request(s) retried after the server had closed a kept-alive connection; timed from the retry)`);
    console.log(
      `machine: ${m.cpu}, ${m.cores} cores, ${m.ram} RAM, ${m.kernel}, Node ${m.node}, wrangler ${m.wrangler} (workerd ${m.workerd})`,
    );
    console.log(
      `load average (1/5/15 min) at start: ${loadAtStart}; at end: ${loadavg()
        .map((x) => x.toFixed(2))
        .join(" / ")}`,
    );
    await dev.stop(); // flushes wrangler's output
    const problems = dev
      .log()
      .split("\n")
      .filter((l) => /byok-edge: |\[ERROR\]|✘/.test(l));
    if (problems.length > 0)
      console.log(`warning: wrangler log has ${problems.length} error/warning line(s):\n  ${problems.slice(0, 10).join("\n  ")}`);
    console.log(`bench took ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } catch (error) {
    if (!isExiting()) {
      console.error("bench failed:", error);
      if (dev) {
        await dev.stop();
        console.error(`--- wrangler log tail ---\n${dev.tail(60)}\n--- end of wrangler log ---`);
      }
    }
    return 1;
  } finally {
    await runCleanups();
  }
}

process.exit(await main());
