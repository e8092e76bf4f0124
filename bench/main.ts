// Benchmark suite of byok-edge (a measurement, not a test; docs/benchmarks.md).
//
// One process holds the timing-aware fake provider (bench/fake-stream-server.ts)
// and the client (bench/turn-client.ts), so provider send times and client receive
// times share one performance.now() clock. The worker runs in `wrangler dev` with
// BYOK_BENCH_ROUTES=true. Every figure is a ratio against a baseline of the same run.
// Sections (`--only NAME[,NAME]`, default all, in this order):
//   latency:     (a) provider first byte → first text, (b) per chunk, (c) BidiAppend vs
//                the echo route, (d) request → provider, against the passthrough route;
//   hosted:      the same turn and (e) unary round trips as a hosted user vs the single
//                user (bench/hosted-user.ts);
//   routing:     a hosted turn on one target vs on two keys and a fallback (bench/routing.ts);
//   tracing:     a hosted turn of a team with an OTLP collector vs one without (bench/tracing.ts);
//   turn-start:  request → provider request, new and warm conversation (bench/turn-start.ts);
//   tool:        tool round trip vs the echo route (bench/tool-round.ts);
//   cpu:         workerd CPU per bare request, per turn (new, warm) and per chunk (bench/cpu.ts);
//   concurrency: N streams at once vs the passthrough and a plain Node relay (bench/concurrency.ts);
//   flood:       one principal's bad-append flood vs another's turns (bench/flood.ts);
//   memory:      workerd RSS per idle conversation and over rounds (bench/memory.ts);
//   code-mode:   code-mode cells vs Codex's reference host (bench/code-mode.ts).
// `--quick` shrinks every size, to check the whole suite works in under 2 minutes.
// `--profile DIR` takes a CPU profile of the worker during each section (workerd's
// inspector, bench/inspector.ts), writes DIR/<section>.cpuprofile and prints where
// the worker's time went; the profiler slows the worker, so figures of such a run are
// for reading the profile, not for docs/benchmarks.md's tables.
import { randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
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
import { createHostedUser, type HostedUser, unaryRoundTrips } from "./hosted-user.ts";
import { codeModeReport } from "./code-mode.ts";
import { concurrencyReport } from "./concurrency.ts";
import { cpuReport } from "./cpu.ts";
import { startStreamServer, type StreamPlan } from "./fake-stream-server.ts";
import { floodReport } from "./flood.ts";
import { BENCH_REQUEST_TTL_MS, memoryReport } from "./memory.ts";
import { byFile, profileTable, profileWhile, topFunctions } from "./inspector.ts";
import { fmt, median, p95, positiveInt, ratio } from "./stats.ts";
import { routingReport } from "./routing.ts";
import { devBundleMap } from "./profile-sources.ts";
import { tracingReport } from "./tracing.ts";
import { toolRoundReport } from "./tool-round.ts";
import { turnStartReport } from "./turn-start.ts";
import { byokTurn, relayRun, retries, type TurnResult } from "./turn-client.ts";

const SECTIONS = [
  "latency",
  "hosted",
  "routing",
  "tracing",
  "turn-start",
  "tool",
  "cpu",
  "concurrency",
  "flood",
  "memory",
  "code-mode",
] as const;
type Section = (typeof SECTIONS)[number];

const { values: opts } = parseArgs({
  options: {
    runs: { type: "string" },
    chunks: { type: "string" },
    interval: { type: "string" },
    appends: { type: "string" },
    warmup: { type: "string" },
    only: { type: "string" },
    quick: { type: "boolean", default: false },
    sizes: { type: "string" },
    conversations: { type: "string" },
    rounds: { type: "string" },
    loops: { type: "string" },
    profile: { type: "string" },
  },
});
const QUICK = opts.quick;
/** A flag's value, or its default (smaller with --quick). */
const flag = (value: string | undefined, full: string, quick: string) => value ?? (QUICK ? quick : full);
const RUNS = positiveInt(flag(opts.runs, "5", "2"), "runs");
const PLAN: StreamPlan = {
  chunks: positiveInt(flag(opts.chunks, "50", "10"), "chunks"),
  intervalMs: positiveInt(flag(opts.interval, "20", "10"), "interval"),
};
const appendsFlag = flag(opts.appends, "10", "3");
const APPENDS = appendsFlag === "0" ? 0 : positiveInt(appendsFlag, "appends"); // 0: streaming figures without concurrent appends
const WARMUP = Number(flag(opts.warmup, "1", "1")) || 0;
/** The concurrency section's stream: 50 chunks 20 ms apart, 1.0 s of provider time (issue 13). */
const CONCURRENT_PLAN: StreamPlan = QUICK ? { chunks: 10, intervalMs: 20 } : { chunks: 50, intervalMs: 20 };
const SIZES = flag(opts.sizes, "25,50,100,200", "5,10")
  .split(",")
  .map((n) => positiveInt(n.trim(), "sizes"));
const CONVERSATIONS = positiveInt(flag(opts.conversations, "50", "5"), "conversations");
const ROUNDS = positiveInt(flag(opts.rounds, "3", "1"), "rounds");
const LOOPS = positiveInt(flag(opts.loops, "8", "2"), "loops");
const ONLY = new Set<Section>(
  (opts.only ?? SECTIONS.join(",")).split(",").map((name) => {
    const section = name.trim() as Section;
    if (!SECTIONS.includes(section)) throw new Error(`--only: unknown section "${name}" (sections: ${SECTIONS.join(", ")})`);
    return section;
  }),
);
const MODEL_NAME = "bench-model";

interface Sample {
  firstByteToFirstDelta: number;
  perChunk: number[];
  appendRtt: number[];
  requestToProvider: number;
}

function sample(t: TurnResult): Sample {
  const perChunk: number[] = [];
  for (let i = 1; i < t.record.plan.chunks; i++) perChunk.push(t.scanner.recvAt[i]! - t.record.sentAt[i]!);
  return {
    firstByteToFirstDelta: t.scanner.recvAt[0]! - t.record.sentAt[0]!,
    perChunk,
    appendRtt: t.appendRtt,
    requestToProvider: t.record.requestAt! - t.sentAt,
  };
}

function machine(): Record<string, string> {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
  const version = (dir: string) => {
    try {
      return (JSON.parse(readFileSync(join(PROJECT_ROOT, dir, "package.json"), "utf8")) as { version: string }).version;
    } catch {
      return undefined;
    }
  };
  // The workerd that wrangler runs: its own nested copy when it has one.
  const workerd =
    ["node_modules/wrangler/node_modules/miniflare/node_modules", "node_modules/wrangler/node_modules", "node_modules"]
      .map((dir) => version(`${dir}/workerd`))
      .find((v) => v !== undefined) ?? "unknown";
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
    wrangler: version("node_modules/wrangler") ?? "unknown",
    workerd,
    kernel,
  };
}

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

function command(): string {
  const parts = [
    `--runs ${RUNS} --chunks ${PLAN.chunks} --interval ${PLAN.intervalMs} --appends ${APPENDS} --warmup ${WARMUP}`,
    `--sizes ${SIZES.join(",")} --conversations ${CONVERSATIONS} --rounds ${ROUNDS} --loops ${LOOPS}`,
  ];
  if (opts.only) parts.push(`--only ${[...ONLY].join(",")}`);
  if (QUICK) parts.push("--quick");
  return `npm run bench -- ${parts.join(" ")}`;
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" / ");

function section(name: string, text: string): void {
  console.log(`\n## ${name}\n\n${text}\n`);
}

/** Runs one section's measurement, under the CPU profiler with --profile. */
async function measured(dev: WranglerDev, name: string, run: () => Promise<string>): Promise<void> {
  if (opts.profile === undefined) return section(name, await run());
  mkdirSync(opts.profile, { recursive: true });
  const { result, profile } = await profileWhile(dev.inspectorPort, join(opts.profile, `${name}.cpuprofile`), run);
  const tables = `${profileTable(byFile(profile), "where (file or package)")}\n\n${profileTable(topFunctions(profile, 25), "function")}`;
  section(name, `${result}\n\nCPU profile of the worker during this section (${join(opts.profile, `${name}.cpuprofile`)}):\n\n${tables}`);
}

/** Sections (a)–(e): the existing turn-latency and hosted-user figures, runs interleaved. */
async function latencySections(
  dev: WranglerDev,
  server: Awaited<ReturnType<typeof startStreamServer>>,
  token: string,
  hostedUser: HostedUser | undefined,
) {
  const baseUrl = dev.baseUrl;
  const wantHosted = ONLY.has("hosted") && hostedUser !== undefined;
  const turn = (tok: string, model: string, appends = APPENDS) => byokTurn({ baseUrl, server, token: tok, model, plan: PLAN, appends });
  const pass = () =>
    relayRun({ url: `${baseUrl}/__bench/passthrough`, server, token, plan: PLAN, appends: APPENDS, echoUrl: `${baseUrl}/__bench/echo` });
  console.log(
    `latency: ${RUNS} runs of ${PLAN.chunks} chunks every ${PLAN.intervalMs} ms, ${APPENDS} timed appends per run, ${WARMUP} warm-up run(s)`,
  );
  for (let w = 0; w < WARMUP; w++) {
    await turn(token, MODEL_NAME);
    if (wantHosted && hostedUser.model) await turn(hostedUser.token, hostedUser.model);
    await pass();
    if (wantHosted) await unaryRoundTrips(baseUrl, hostedUser.token, 2);
  }
  const byok: Sample[] = [];
  const hosted: Sample[] = [];
  const passes: Sample[] = [];
  const localUnary: number[] = [];
  const hostedUnary: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    byok.push(sample(await turn(token, MODEL_NAME)));
    if (wantHosted && hostedUser.model) hosted.push(sample(await turn(hostedUser.token, hostedUser.model)));
    passes.push(sample(await pass()));
    // Alternating, so a change in load falls on both principals alike.
    if (wantHosted)
      for (let k = 0; k < Math.max(APPENDS, 1); k++) {
        localUnary.push(...(await unaryRoundTrips(baseUrl, token, 1)));
        hostedUnary.push(...(await unaryRoundTrips(baseUrl, hostedUser.token, 1)));
      }
    process.stdout.write(`run ${r + 1}/${RUNS} done\n`);
  }
  if (ONLY.has("latency")) {
    section("latency", `byok-edge per run:\n${perRun(byok)}\npassthrough per run:\n${perRun(passes)}\n\n${report(byok, passes)}`);
  }
  if (wantHosted) {
    const perHosted = hostedUser.model ? `hosted user per run:\n${perRun(hosted)}\n\n` : "";
    section(
      "hosted",
      `${perHosted}hosted user vs single user:\n${hostedReport(byok, hostedUser.model ? hosted : undefined, localUnary, hostedUnary)}`,
    );
  }
}

async function main(): Promise<number> {
  installExitHandlers();
  const started = performance.now();
  const loadAtStart = load();
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
        // Ended requests let go of their frames within the memory section's 15 s pause (bench/memory.ts).
        BYOK_REQUEST_TTL_MS: String(BENCH_REQUEST_TTL_MS),
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
    console.log(`command: ${command()}`);
    console.log(`wrangler dev ready on ${dev.baseUrl}; sections: ${[...ONLY].join(", ")}`);
    const baseUrl = dev.baseUrl;
    const common = { baseUrl, server, token, model: MODEL_NAME };
    const needsHosted = ONLY.has("hosted") || ONLY.has("flood") || ONLY.has("routing");
    const hostedUser = needsHosted ? await createHostedUser(baseUrl, adminToken, `http://127.0.0.1:${server.port}/v1`) : undefined;
    if (hostedUser && !hostedUser.model) console.log("hosted user: this build does not serve the credentials API; only (e) is compared");

    if (ONLY.has("latency") || ONLY.has("hosted")) await latencySections(dev, server, token, hostedUser);
    if (ONLY.has("routing") && hostedUser?.model) {
      const routing = { baseUrl, server, token: hostedUser.token, providerBaseUrl: `http://127.0.0.1:${server.port}/v1` };
      await measured(dev, "routing", () => routingReport({ ...routing, runs: QUICK ? 3 : 20 }));
    }
    if (ONLY.has("tracing")) {
      const tracing = {
        baseUrl,
        server,
        adminToken,
        providerBaseUrl: `http://127.0.0.1:${server.port}/v1`,
        inspectorPort: dev.inspectorPort,
        bundleMap: () => devBundleMap(workDir),
        profileFile: opts.profile === undefined ? undefined : join(opts.profile, "tracing.cpuprofile"),
      };
      // Not under measured(): the section takes its own profile.
      section("tracing", await tracingReport({ ...tracing, runs: QUICK ? 3 : 400, profiledRuns: QUICK ? 3 : 200 }));
    }
    if (ONLY.has("turn-start")) await measured(dev, "turn-start", () => turnStartReport({ ...common, runs: QUICK ? 3 : 20 }));
    if (ONLY.has("tool")) await measured(dev, "tool", () => toolRoundReport({ ...common, runs: QUICK ? 3 : 20 }));
    const pgrp = dev.pid;
    if (pgrp === undefined) throw new Error("wrangler's pid is unknown");
    if (ONLY.has("cpu")) await measured(dev, "cpu", () => cpuReport({ ...common, pgrp, runs: QUICK ? 4 : 20 }));
    if (ONLY.has("concurrency"))
      await measured(dev, "concurrency", () => concurrencyReport({ ...common, pgrp, plan: CONCURRENT_PLAN, sizes: SIZES }));
    if (ONLY.has("flood") && hostedUser)
      section(
        "flood",
        await floodReport({
          ...common,
          floodToken: hostedUser.token,
          loops: LOOPS,
          runs: QUICK ? 2 : 10,
          plan: { chunks: 10, intervalMs: 20 },
        }),
      );
    if (ONLY.has("memory")) {
      section(
        "memory",
        await memoryReport({
          ...common,
          pgrp,
          inspectorPort: dev.inspectorPort,
          conversations: CONVERSATIONS,
          rounds: ROUNDS,
          pauseMs: QUICK ? 2_000 : 15_000,
        }),
      );
    }
    if (ONLY.has("code-mode"))
      section("code-mode", `code mode, byok-edge vs the reference host:\n${await codeModeReport(baseUrl, token, QUICK ? 2 : RUNS * 4)}`);

    const m = machine();
    if (retries.stale > 0)
      console.log(`(${retries.stale} request(s) retried after the server had closed a kept-alive connection; timed from the retry)`);
    console.log(`command: ${command()}`);
    console.log(
      `machine: ${m.cpu}, ${m.cores} cores, ${m.ram} RAM, ${m.kernel}, Node ${m.node}, wrangler ${m.wrangler} (workerd ${m.workerd})`,
    );
    console.log(`load average (1/5/15 min) at start: ${loadAtStart}; at end: ${load()}`);
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
