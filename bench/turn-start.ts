// Turn-start section of `npm run bench` (docs/benchmarks.md#turn-start): client
// sends BidiAppend(run_request) → the provider receives the chat request, for a turn
// on a NEW conversation and for a WARM one (the second turn on a conversation whose
// object is live), against the passthrough's request → provider time, same run.
import { fmt, median, p99, ratio, table } from "./stats.ts";
import { type BenchTarget, byokTurn, relayRun, SHORT_PLAN as SHORT, type TurnResult } from "./turn-client.ts";
const requestToProvider = (t: TurnResult) => t.record.requestAt! - t.sentAt;

export async function turnStartReport(opts: BenchTarget & { runs: number }): Promise<string> {
  const { baseUrl, server, token, model } = opts;
  const fresh: number[] = [];
  const warm: number[] = [];
  const pass: number[] = [];
  for (let r = 0; r < opts.runs; r++) {
    const first = await byokTurn({ baseUrl, server, token, model, plan: SHORT });
    fresh.push(requestToProvider(first));
    warm.push(requestToProvider(await byokTurn({ baseUrl, server, token, model, plan: SHORT, conversationId: first.conversationId })));
    pass.push(requestToProvider(await relayRun({ url: `${baseUrl}/__bench/passthrough`, server, token, plan: SHORT })));
  }
  const row = (name: string, v: number[]) => [
    name,
    fmt(median(v)),
    fmt(p99(v)),
    fmt(median(pass)),
    fmt(median(v) - median(pass)),
    ratio(median(v), median(pass)),
  ];
  return table(
    ["figure (request → provider request)", "byok-edge p50", "byok-edge p99", "passthrough p50", "difference p50", "ratio p50"],
    [row("new conversation", fresh), row("warm conversation (second turn)", warm)],
  ).concat(`\n\n${opts.runs} runs; passthrough p99 ${fmt(p99(pass))}`);
}
