// Concurrency section of `npm run bench` (docs/benchmarks.md#concurrency): N
// conversations streaming at once (each: the plan's chunks, e.g. 50 × 20 ms = 1.0 s of
// provider time), through byok-edge, through the worker's passthrough route and
// through a plain Node relay (bench/node-relay.ts), for each N. Per side: errors,
// wall time ÷ provider time, turn p50/p99 (request sent → stream ended), streams with
// a chunk reordered, and workerd's CPU per stream (bench/workerd-process.ts).
import { performance } from "node:perf_hooks";
import type { StreamPlan, StreamServer } from "./fake-stream-server.ts";
import { startNodeRelay } from "./node-relay.ts";
import { fmt, median, p99, ratio, table } from "./stats.ts";
import { byokTurn, relayRun, type TurnResult } from "./turn-client.ts";
import { cpuOf } from "./workerd-process.ts";

/** How long one stream may take at most, beyond the provider's own time. */
const TURN_TIMEOUT_MS = 120_000;

interface Side {
  errors: number;
  firstError?: string;
  wallMs: number;
  turnMs: number[];
  /** Request sent → provider has the request. */
  startMs: number[];
  /** Last chunk received → stream ended (byok-edge: the checkpoint tail). */
  tailMs: number[];
  reordered: number;
  /** workerd CPU (all threads) per stream; the Node relay's streams use almost none of it. */
  cpuPerStreamMs: number;
}

async function atOnce(pgrp: number, n: number, one: () => Promise<TurnResult>): Promise<Side> {
  const start = performance.now();
  const { result: settled, cpuMs } = await cpuOf(pgrp, () => Promise.allSettled(Array.from({ length: n }, one)));
  const wallMs = performance.now() - start;
  const done = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = settled.flatMap((s) => (s.status === "rejected" ? [s.reason as unknown] : []));
  return {
    errors: failed.length,
    firstError: failed[0] === undefined ? undefined : String((failed[0] as Error).message ?? failed[0]).slice(0, 200),
    wallMs,
    turnMs: done.map((t) => t.endedAt - t.sentAt),
    startMs: done.map((t) => t.record.requestAt! - t.sentAt),
    tailMs: done.map((t) => t.endedAt - Math.max(...t.scanner.recvAt)),
    reordered: done.filter((t) => t.scanner.reordered).length,
    cpuPerStreamMs: cpuMs / n,
  };
}

export async function concurrencyReport(opts: {
  baseUrl: string;
  server: StreamServer;
  token: string;
  model: string;
  pgrp: number;
  plan: StreamPlan;
  sizes: number[];
}): Promise<string> {
  const { baseUrl, server, token, model, plan } = opts;
  const providerMs = plan.chunks * plan.intervalMs;
  const relay = await startNodeRelay();
  const rows: string[][] = [];
  const notes: string[] = [];
  // Patient, so that an error is the server's and not the bench giving up: a client waits this long.
  const timeoutMs = TURN_TIMEOUT_MS + providerMs;
  const sides: [string, () => Promise<TurnResult>][] = [
    ["byok-edge", () => byokTurn({ baseUrl, server, token, model, plan, timeoutMs })],
    ["passthrough", () => relayRun({ url: `${baseUrl}/__bench/passthrough`, server, token, plan, timeoutMs })],
    ["node relay", () => relayRun({ url: relay.url, server, token, plan, timeoutMs })],
  ];
  try {
    for (const [, one] of sides) await one(); // warm-up, not counted: the first request of each path pays its setup
    for (const n of opts.sizes) {
      const measured: Side[] = [];
      for (const [name, one] of sides) {
        const side = await atOnce(opts.pgrp, n, one);
        measured.push(side);
        if (side.firstError) notes.push(`N=${n} ${name}: ${side.errors} error(s), first: ${side.firstError}`);
        process.stdout.write(`concurrency N=${n} ${name} done\n`);
      }
      const [byok, pass, node] = measured as [Side, Side, Side];
      for (const [name, side] of [
        ["byok-edge", byok],
        ["passthrough", pass],
        ["node relay", node],
      ] as const) {
        rows.push([
          `N=${n} ${name}`,
          String(side.errors),
          String(side.reordered),
          `${(side.wallMs / 1000).toFixed(2)} s`,
          ratio(side.wallMs, providerMs),
          fmt(median(side.turnMs)),
          fmt(p99(side.turnMs)),
          fmt(median(side.startMs)),
          fmt(median(side.tailMs)),
          fmt(side.cpuPerStreamMs),
          name === "byok-edge" ? "" : ratio(byok.wallMs, side.wallMs),
        ]);
      }
    }
  } finally {
    relay.close();
  }
  const head = [
    "N, side",
    "errors",
    "reordered",
    "wall",
    "wall ÷ provider",
    "turn p50",
    "turn p99",
    "start p50",
    "tail p50",
    "workerd CPU per stream",
    "byok-edge wall ÷ this",
  ];
  return `${table(head, rows)}\n\nprovider time per stream: ${plan.chunks} chunks × ${plan.intervalMs} ms = ${providerMs} ms${
    notes.length > 0 ? `\n${notes.join("\n")}` : ""
  }`;
}
