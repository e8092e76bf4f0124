// CPU section of `npm run bench` (docs/benchmarks.md#cpu): how much CPU workerd
// spends (all its threads, from /proc) on one bare authenticated request, one turn
// on a new and on a warm conversation, and one streamed chunk through byok-edge and
// through the passthrough route. The unit that explains the concurrency figures: N
// streams at once need N × (CPU per turn) of a process that runs the worker's
// isolate on one thread.
import type { StreamPlan } from "./fake-stream-server.ts";
import { ratio, table } from "./stats.ts";
import { type BenchTarget, byokTurn, echoRoundTrip, relayRun, SHORT_PLAN as SHORT, type TurnResult } from "./turn-client.ts";
import { cpuOf } from "./workerd-process.ts";

const LONG: StreamPlan = { chunks: 400, intervalMs: 2 };

export async function cpuReport(
  opts: BenchTarget & {
    pgrp: number;
    /** Units per figure (requests, turns); the long streams are a fifth of it, at least 2. */
    runs: number;
  },
): Promise<string> {
  const { baseUrl, server, token, model, pgrp, runs } = opts;
  const turn = (plan: StreamPlan, conversationId?: string) =>
    byokTurn({ baseUrl, server, token, model, plan, ...(conversationId && { conversationId }) });
  const times = async (n: number, one: () => Promise<TurnResult | undefined>) => {
    const results: (TurnResult | undefined)[] = [];
    const { cpuMs } = await cpuOf(pgrp, async () => {
      for (let i = 0; i < n; i++) results.push(await one());
    });
    return { perUnit: cpuMs / n, results };
  };
  const echo = async () => {
    await echoRoundTrip(baseUrl, token);
    return undefined;
  };
  const warmConversation = (await turn(SHORT)).conversationId; // also warms the code paths
  await relayRun({ url: `${baseUrl}/__bench/passthrough`, server, token, plan: SHORT });

  const bare = await times(runs * 5, echo);
  const warm = await times(runs, () => turn(SHORT, warmConversation));
  const fresh = await times(runs, () => turn(SHORT));
  const longRuns = Math.max(2, Math.round(runs / 5));
  const byokLong = await times(longRuns, () => turn(LONG));
  const passLong = await times(longRuns, () => relayRun({ url: `${baseUrl}/__bench/passthrough`, server, token, plan: LONG }));

  const requestsPerTurn = average(warm.results.map((r) => r?.requests ?? Number.NaN));
  // A long stream's CPU beyond its turn's fixed part, per chunk (the short turn has SHORT.chunks chunks too).
  const byokChunk = (byokLong.perUnit - fresh.perUnit) / (LONG.chunks - SHORT.chunks);
  const passChunk = (passLong.perUnit - bare.perUnit) / LONG.chunks;
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const rows = [
    ["a bare authenticated request (the echo route)", ms(bare.perUnit), "1.00×"],
    [
      `a turn on a warm conversation (${SHORT.chunks} chunks, ${requestsPerTurn.toFixed(1)} requests)`,
      ms(warm.perUnit),
      ratio(warm.perUnit, bare.perUnit),
    ],
    [`a turn on a new conversation (${SHORT.chunks} chunks)`, ms(fresh.perUnit), ratio(fresh.perUnit, bare.perUnit)],
    ["one more streamed chunk, byok-edge", ms(byokChunk), ratio(byokChunk, bare.perUnit)],
    ["one more streamed chunk, passthrough", ms(passChunk), ratio(passChunk, bare.perUnit)],
  ];
  const turn50 = fresh.perUnit + (50 - SHORT.chunks) * byokChunk;
  return `${table(["workerd CPU for", "CPU", "÷ bare request"], rows)}\n\n${runs * 5} bare requests, ${runs} turns of each kind, ${longRuns} streams of ${LONG.chunks} chunks per side; CPU is utime + stime of wrangler's workerd processes (10 ms ticks) over the whole batch, divided by its size. A new conversation's turn of 50 chunks then needs about ${ms(turn50)} of CPU (the turn's requests alone about ${ms(requestsPerTurn * bare.perUnit)}); per chunk byok-edge spends ${ratio(byokChunk, passChunk)} the passthrough's CPU.`;
}

function average(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
