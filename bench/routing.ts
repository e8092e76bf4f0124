// Routing section of `npm run bench` (docs/benchmarks.md#model-routing): a hosted user's turn on a
// model with one target, as every model was before routing, against the same turn on a model with
// two keys and a fallback, whose first attempt answers (so the difference is the pick from the
// team's key pool object), turns interleaved in the same run. Measured on a new conversation and
// on a warm one (its second turn), from BidiAppend(run_request) to the provider's request, and
// from the provider's first byte to the client's first text.
import { createRoutedModels } from "./hosted-user.ts";
import { fmt, median, p95, ratio, table } from "./stats.ts";
import type { StreamServer } from "./fake-stream-server.ts";
import { byokTurn, SHORT_PLAN, type TurnResult } from "./turn-client.ts";

const requestToProvider = (t: TurnResult) => t.record.requestAt! - t.sentAt;
const firstText = (t: TurnResult) => t.scanner.recvAt[0]! - t.record.sentAt[0]!;

export async function routingReport(opts: { baseUrl: string; server: StreamServer; token: string; providerBaseUrl: string; runs: number }) {
  const { baseUrl, server, token } = opts;
  const models = await createRoutedModels(baseUrl, token, opts.providerBaseUrl);
  const samples = {
    single: { fresh: [] as TurnResult[], warm: [] as TurnResult[] },
    routed: { fresh: [] as TurnResult[], warm: [] as TurnResult[] },
  };
  const turns = async (which: "single" | "routed") => {
    const model = models[which];
    const first = await byokTurn({ baseUrl, server, token, model, plan: SHORT_PLAN });
    const second = await byokTurn({ baseUrl, server, token, model, plan: SHORT_PLAN, conversationId: first.conversationId });
    return { first, second };
  };
  // A warm-up pair, so neither model pays for the isolate's first catalogue load or the pool object's start.
  await turns("single");
  await turns("routed");
  for (let r = 0; r < opts.runs; r++) {
    for (const which of r % 2 === 0 ? (["single", "routed"] as const) : (["routed", "single"] as const)) {
      const { first, second } = await turns(which);
      samples[which].fresh.push(first);
      samples[which].warm.push(second);
    }
  }
  const row = (
    name: string,
    f: (t: TurnResult) => number,
    pick: (s: (typeof samples)["single"]) => TurnResult[],
    q: (v: number[]) => number,
  ) => {
    const one = q(pick(samples.single).map(f));
    const routed = q(pick(samples.routed).map(f));
    return [name, fmt(one), fmt(routed), fmt(routed - one), ratio(routed, one)];
  };
  return table(
    ["figure", "one target", "two keys + a fallback", "difference", "ratio"],
    [
      row("request → provider request, new conversation, p50", requestToProvider, (s) => s.fresh, median),
      row("request → provider request, warm conversation, p50", requestToProvider, (s) => s.warm, median),
      row("request → provider request, warm conversation, p95", requestToProvider, (s) => s.warm, p95),
      row("provider first byte → client first text, p50", firstText, (s) => [...s.fresh, ...s.warm], median),
    ],
  ).concat(`\n\n${opts.runs} runs of a new and a warm turn per model, interleaved (order alternating per run)`);
}
