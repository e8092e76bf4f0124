// Tracing section of `npm run bench` (docs/benchmarks.md#tracing, issue 26): the same hosted turn
// for a team whose runs are traced (its `otlp` setting names a collector in this process, which
// answers every export at once) and for a team without, turns interleaved in the same run.
// Target: tracing on adds at most 0.2 ms to a turn at p50.
//
// Two measurements. The turn's times, on and off, with a bootstrap interval of their difference:
// in `wrangler dev` a turn varies by milliseconds, so this bounds the difference only roughly.
// Then the isolate's CPU profile over more turns, each sample charged by the source map to the
// tracing code or not: tracing does no I/O before the end-stream, so its CPU on the turn's path
// is what it can add to the turn, and that figure resolves far below 0.2 ms.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { StreamServer } from "./fake-stream-server.ts";
import { createHostedUser, type HostedUser } from "./hosted-user.ts";
import { profileWhile } from "./inspector.ts";
import { type SourceFrame, timeByCategory } from "./profile-sources.ts";
import { differenceInterval, fmt, median, p95, ratio, table } from "./stats.ts";
import { byokTurn, SHORT_PLAN, type TurnResult } from "./turn-client.ts";

const requestToProvider = (t: TurnResult) => t.record.requestAt! - t.sentAt;
const providerToEnd = (t: TurnResult) => t.endedAt - t.record.requestAt!;
const wholeTurn = (t: TurnResult) => t.endedAt - t.sentAt;
/** Turns per conversation before a new one, so a conversation's history stays short on both sides. */
const CONVERSATION_TURNS = 10;
const WARMUP = 10;

type Side = "on" | "off";

/** Where a profiled function was written: tracing code on the turn's path, its export after the end-stream, or neither. */
const NONE = 0;
const ON_TURN = 1;
const EXPORT = 2;
function tracingPart({ functionName, source }: SourceFrame): number {
  // Log lines are written whether a run is traced or not (and, in wrangler dev, cost a console write each).
  if (source.includes("src/telemetry/log-line.ts") || functionName === "logRunEnd") return NONE;
  if (/src\/telemetry\/(send-trace|otlp-export)\.ts/.test(source)) return EXPORT;
  if (
    /src\/telemetry\/|src\/cursor\/agent\/run-spans\.ts|src\/cursor\/session\/run-telemetry\.ts|node_modules\/@opentelemetry\//.test(source)
  )
    return ON_TURN;
  return NONE;
}

/** A collector that takes every export and answers 200; it counts the exports it got. */
async function startCollector(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      exports++;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, exports: () => exports, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Turns for both teams, each on its own conversations, interleaved with the order alternating per round. */
function turnTaker(opts: { baseUrl: string; server: StreamServer }, users: Record<Side, HostedUser>) {
  const conversations: Record<Side, string | undefined> = { on: undefined, off: undefined };
  const turns: Record<Side, number> = { on: 0, off: 0 };
  const turn = async (side: Side) => {
    if (turns[side]++ % CONVERSATION_TURNS === 0) conversations[side] = undefined;
    const result = await byokTurn({
      baseUrl: opts.baseUrl,
      server: opts.server,
      token: users[side].token,
      model: users[side].model!,
      plan: SHORT_PLAN,
      ...(conversations[side] && { conversationId: conversations[side] }),
    });
    conversations[side] = result.conversationId;
    return result;
  };
  return async (rounds: number) => {
    const samples = { on: [] as TurnResult[], off: [] as TurnResult[] };
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const)) samples[side].push(await turn(side));
    }
    return samples;
  };
}

export async function tracingReport(opts: {
  baseUrl: string;
  server: StreamServer;
  adminToken: string;
  providerBaseUrl: string;
  inspectorPort: number;
  /** The source map of the bundle wrangler dev runs (profile-sources.ts devBundleMap). */
  bundleMap: () => string;
  /** Where to write the profile (with --profile), besides reading it. */
  profileFile: string | undefined;
  /** Turns per team timed, and profiled. */
  runs: number;
  profiledRuns: number;
}) {
  const collector = await startCollector();
  try {
    const traced = await createHostedUser(opts.baseUrl, opts.adminToken, opts.providerBaseUrl, {
      name: "bench-traced",
      settings: { otlp: { endpoint: collector.url } },
    });
    const plain = await createHostedUser(opts.baseUrl, opts.adminToken, opts.providerBaseUrl, { name: "bench-untraced" });
    if (!traced.model || !plain.model) return "tracing: this build does not serve the credentials API";
    const rounds = turnTaker(opts, { on: traced, off: plain });
    await rounds(WARMUP);
    const samples = await rounds(opts.runs);

    const exportsBefore = collector.exports();
    const { profile } = await profileWhile(opts.inspectorPort, opts.profileFile, () => rounds(opts.profiledRuns));
    const profiledExports = collector.exports() - exportsBefore;
    const { byCategory, busyMs } = timeByCategory(profile, opts.bundleMap(), tracingPart);
    const perTracedTurn = (part: number) => (byCategory.get(part) ?? 0) / opts.profiledRuns;
    const busyPerTurn = busyMs / (2 * opts.profiledRuns);

    const row = (name: string, f: (t: TurnResult) => number, q: (v: number[]) => number) => {
      const on = q(samples.on.map(f));
      const off = q(samples.off.map(f));
      const [low, high] = differenceInterval(samples.on.map(f), samples.off.map(f), q);
      return [name, fmt(on), fmt(off), fmt(on - off), `${fmt(low)} to ${fmt(high)}`, ratio(on, off)];
    };
    const times = table(
      ["figure", "tracing on", "tracing off", "difference", "95% interval of the difference", "ratio"],
      [
        row("request → provider request, p50", requestToProvider, median),
        row("provider request → end of stream, p50", providerToEnd, median),
        row("request → end of stream, p50", wholeTurn, median),
        row("request → end of stream, p95", wholeTurn, p95),
      ],
    );
    const cpuMs = (v: number) => `${v.toFixed(3)} ms`;
    const share = (v: number) => `${((100 * v) / busyPerTurn).toFixed(2)} %`;
    const cpu = table(
      ["isolate CPU (profiled)", "per traced turn", "share of a turn's CPU"],
      [
        ["a turn, on average over both teams", cpuMs(busyPerTurn), "100.00 %"],
        ["tracing code on the turn's path (spans recorded)", cpuMs(perTracedTurn(ON_TURN)), share(perTracedTurn(ON_TURN))],
        ["tracing code after the end-stream (spans made, serialized, sent)", cpuMs(perTracedTurn(EXPORT)), share(perTracedTurn(EXPORT))],
      ],
    );
    return `${times}\n\n${opts.runs} turns per team, interleaved (order alternating per round); ${CONVERSATION_TURNS} turns per conversation; intervals by bootstrap (2000 resamples).\n\n${cpu}\n\n${opts.profiledRuns} more turns per team under V8's sampling profiler (100 µs); each sample charged to tracing when a frame of its stack comes from src/telemetry/, the run's span helpers or @opentelemetry (by the bundle's source map). The collector took ${profiledExports} exports while profiled.`;
  } finally {
    await collector.close();
  }
}
