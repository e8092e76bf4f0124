// Flood isolation section of `npm run bench` (docs/benchmarks.md#flood-isolation):
// principal A (the hosted user) floods bad BidiAppends from K concurrent loops —
// malformed bodies, data that is not hex, unknown request ids — while principal
// B (the single-user token) runs turns. B's turn time and first text with the flood
// against without it, alternating, in the same run.
import { randomBytes, randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { StreamPlan, StreamServer } from "./fake-stream-server.ts";
import { fmt, median, p99, ratio, table } from "./stats.ts";
import { create, toBinary } from "@bufbuild/protobuf";
import { BidiAppendRequestSchema } from "../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { appendBody, byokTurn, heartbeat, post, type TurnResult } from "./turn-client.ts";

/**
 * An append for a request id no RunSSE or run_request has bound waits up to 30 s
 * server-side for its binding (ROUTE_WAIT_MS, docs/protocol.md#seqno); the flooding
 * client gives up on it after this long and sends the next one, as an attacker would.
 */
const GIVE_UP_MS = 100;

interface Flood {
  /** Resolves once every loop has had an answer, so the flood is on. */
  running: Promise<void>;
  stop(): Promise<{ requests: number; statuses: Map<string, number>; ms: number }>;
}

const BAD_BODIES: (() => Uint8Array)[] = [
  () => randomBytes(64), // not a BidiAppendRequest
  () => notHexBody(), // a BidiAppendRequest whose data is not hex
  () => appendBody(randomUUID(), 0, heartbeat()), // a request id no RunSSE has opened
];

function notHexBody(): Uint8Array {
  return toBinary(
    BidiAppendRequestSchema,
    create(BidiAppendRequestSchema, { requestId: { requestId: randomUUID() }, appendSeqno: 1n, data: "zz" }),
  );
}

/** `bad`: the bad appends; `good`: the echo route, a valid authenticated request (the control). */
type FloodKind = "bad" | "good";

function startFlood(baseUrl: string, token: string, loops: number, kind: FloodKind): Flood {
  const statuses = new Map<string, number>();
  const controller = new AbortController();
  let requests = 0;
  let stopped = false;
  let answered = 0;
  const on = Promise.withResolvers<void>();
  const start = performance.now();
  const loop = async (k: number) => {
    let first = true;
    for (let i = k; !stopped; i++) {
      let key: string;
      const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(GIVE_UP_MS)]);
      try {
        const res =
          kind === "bad"
            ? await post(
                `${baseUrl}/aiserver.v1.BidiService/BidiAppend`,
                token,
                BAD_BODIES[i % BAD_BODIES.length]!(),
                "application/proto",
                signal,
              )
            : await post(`${baseUrl}/__bench/echo`, token, appendBody(randomUUID(), 1, heartbeat()), "application/proto", signal);
        await res.arrayBuffer();
        key = String(res.status);
      } catch (error) {
        if (stopped) return;
        key =
          (error as Error).name === "TimeoutError"
            ? `gave up after ${GIVE_UP_MS} ms`
            : `error ${(error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name}`;
      }
      requests++;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (first && ++answered === loops) on.resolve();
      first = false;
    }
  };
  const done = Promise.all(Array.from({ length: loops }, (_, k) => loop(k)));
  return {
    running: on.promise,
    stop: async () => {
      stopped = true;
      const ms = performance.now() - start;
      await Promise.race([done, new Promise((r) => setTimeout(r, 5_000))]);
      controller.abort();
      return { requests, statuses, ms };
    },
  };
}

export async function floodReport(opts: {
  baseUrl: string;
  server: StreamServer;
  token: string;
  model: string;
  floodToken: string;
  loops: number;
  runs: number;
  plan: StreamPlan;
}): Promise<string> {
  const { baseUrl, server, token, model, plan } = opts;
  const quiet: TurnResult[] = [];
  const flooded: Record<FloodKind, TurnResult[]> = { bad: [], good: [] };
  const sent: Record<FloodKind, { requests: number; ms: number }> = { bad: { requests: 0, ms: 0 }, good: { requests: 0, ms: 0 } };
  const statuses = new Map<string, number>();
  for (let r = 0; r < opts.runs; r++) {
    quiet.push(await byokTurn({ baseUrl, server, token, model, plan }));
    for (const kind of ["bad", "good"] as const) {
      const flood = startFlood(baseUrl, opts.floodToken, opts.loops, kind);
      await Promise.race([flood.running, new Promise((r) => setTimeout(r, 10_000))]);
      try {
        flooded[kind].push(await byokTurn({ baseUrl, server, token, model, plan }));
      } finally {
        const result = await flood.stop();
        sent[kind].requests += result.requests;
        sent[kind].ms += result.ms;
        if (kind === "bad") for (const [k, v] of result.statuses) statuses.set(k, (statuses.get(k) ?? 0) + v);
      }
    }
  }
  const turn = (t: TurnResult) => t.endedAt - t.sentAt;
  const firstText = (t: TurnResult) => t.scanner.recvAt[0]! - t.sentAt;
  const firstByte = (t: TurnResult) => t.scanner.recvAt[0]! - t.record.sentAt[0]!;
  const rows: [string, (t: TurnResult) => number, (v: number[]) => number][] = [
    ["B's turn (run_request sent → end-stream), p50", turn, median],
    ["B's turn, p99", turn, p99],
    ["B's first text (run_request sent → first text), p50", firstText, median],
    ["B's provider first byte → first text, p50", firstByte, median],
  ];
  const counts = [...statuses].map(([k, v]) => `${k}: ${v}`).join(", ");
  const rate = (kind: FloodKind) => (sent[kind].requests / (sent[kind].ms / 1000)).toFixed(0);
  return table(
    ["figure", "with A's bad flood", "with A's good requests", "without", "bad ÷ without", "bad ÷ good"],
    rows.map(([name, f, q]) => {
      const bad = q(flooded.bad.map(f));
      const good = q(flooded.good.map(f));
      const wo = q(quiet.map(f));
      return [name, fmt(bad), fmt(good), fmt(wo), ratio(bad, wo), ratio(bad, good)];
    }),
  ).concat(
    `\n\n${opts.runs} turn triples (${plan.chunks} chunks × ${plan.intervalMs} ms); A's flood: ${opts.loops} loops, ${sent.bad.requests} bad appends, ${rate("bad")}/s while on; answers: ${counts}; the control: the same loops sending valid authenticated requests (the echo route), ${rate("good")}/s. A bad ÷ good near 1× at a similar rate means the bad requests cost B no more than any request of A does: the isolate's CPU, shared by all.`,
  );
}
