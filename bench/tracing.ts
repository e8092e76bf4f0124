// Tracing section of `npm run bench` (docs/benchmarks.md#tracing, issue 26): the same hosted turn
// for a team whose runs are traced (its `otlp` setting names a collector in this process, which
// answers every export at once) and for a team without, turns interleaved in the same run. The
// spans are made during the turn and sent after its end-stream, so the figure to watch is the
// turn itself: request → provider request, and request → end of the stream. Target: tracing on
// adds at most 0.2 ms at p50.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createHostedUser } from "./hosted-user.ts";
import type { StreamServer } from "./fake-stream-server.ts";
import { fmt, median, p95, ratio, table } from "./stats.ts";
import { byokTurn, SHORT_PLAN, type TurnResult } from "./turn-client.ts";

const requestToProvider = (t: TurnResult) => t.record.requestAt! - t.sentAt;
const wholeTurn = (t: TurnResult) => t.endedAt - t.sentAt;

/** A collector that takes every export and answers 200; it counts the spans' bytes it got. */
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

export async function tracingReport(opts: {
  baseUrl: string;
  server: StreamServer;
  adminToken: string;
  providerBaseUrl: string;
  runs: number;
}) {
  const collector = await startCollector();
  try {
    const traced = await createHostedUser(opts.baseUrl, opts.adminToken, opts.providerBaseUrl, {
      name: "bench-traced",
      settings: { otlp: { endpoint: collector.url } },
    });
    const plain = await createHostedUser(opts.baseUrl, opts.adminToken, opts.providerBaseUrl, { name: "bench-untraced" });
    if (!traced.model || !plain.model) return "tracing: this build does not serve the credentials API";
    const users = { on: traced, off: plain };
    const samples = { on: [] as TurnResult[], off: [] as TurnResult[] };
    const turn = (which: "on" | "off") =>
      byokTurn({ baseUrl: opts.baseUrl, server: opts.server, token: users[which].token, model: users[which].model!, plan: SHORT_PLAN });
    await turn("on");
    await turn("off");
    for (let r = 0; r < opts.runs; r++) {
      for (const which of r % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const)) samples[which].push(await turn(which));
    }
    const row = (name: string, f: (t: TurnResult) => number, q: (v: number[]) => number) => {
      const on = q(samples.on.map(f));
      const off = q(samples.off.map(f));
      return [name, fmt(on), fmt(off), fmt(on - off), ratio(on, off)];
    };
    return table(
      ["figure", "tracing on", "tracing off", "difference", "ratio"],
      [
        row("request → provider request, p50", requestToProvider, median),
        row("request → end of stream, p50", wholeTurn, median),
        row("request → end of stream, p95", wholeTurn, p95),
      ],
    ).concat(`\n\n${opts.runs} turns per team, interleaved (order alternating per run); the collector took ${collector.exports()} exports`);
  } finally {
    await collector.close();
  }
}
