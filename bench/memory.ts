// Memory section of `npm run bench` (docs/benchmarks.md#memory): the summed VmRSS of
// the workerd processes in wrangler dev's process group (read from /proc), before
// and after M conversations (one short turn each, then idle): Δ/M per idle
// conversation object; then R more rounds of M conversations, all ended, to show
// whether RSS keeps growing after conversations end; then once more after a pause.
import { setTimeout as sleep } from "node:timers/promises";
import { heapUsedAfterGc } from "./inspector.ts";
import type { StreamServer } from "./fake-stream-server.ts";
import { mib, pool, table } from "./stats.ts";
import { byokTurn } from "./turn-client.ts";
import { workerdRss } from "./workerd-process.ts";

const SHORT = { chunks: 2, intervalMs: 5 };
const AT_ONCE = 8;
/** The bench server's BYOK_REQUEST_TTL_MS: shorter than the pause, so the last row shows what a schedule releases. */
export const BENCH_REQUEST_TTL_MS = 10_000;

export async function memoryReport(opts: {
  baseUrl: string;
  server: StreamServer;
  token: string;
  model: string;
  pgrp: number;
  inspectorPort: number;
  conversations: number;
  rounds: number;
  pauseMs: number;
}): Promise<string> {
  const { baseUrl, server, token, model, pgrp, conversations: m } = opts;
  const round = () => pool(Array.from({ length: m }), AT_ONCE, () => byokTurn({ baseUrl, server, token, model, plan: SHORT }));
  const rows: string[][] = [];
  await byokTurn({ baseUrl, server, token, model, plan: SHORT }); // warm-up, not counted: loads the worker's code paths
  const heap = () => heapUsedAfterGc(opts.inspectorPort);
  const before = workerdRss(pgrp);
  if (before.count === 0) throw new Error(`memory: no workerd process in process group ${pgrp}`);
  const heapBefore = await heap();
  rows.push(["before", "0", mib(before.bytes), "", mib(heapBefore), ""]);
  let total = 0;
  let previous = before.bytes;
  let afterFirst = Number.NaN;
  for (let r = 1; r <= 1 + opts.rounds; r++) {
    await round();
    total += m;
    const now = workerdRss(pgrp).bytes;
    const heapNow = await heap();
    rows.push([
      r === 1 ? `after round 1 (${m} idle conversations)` : `after round ${r}`,
      String(total),
      mib(now),
      mib(now - previous),
      mib(heapNow),
      r === 1
        ? `${((now - before.bytes) / m / 1024).toFixed(0)} KiB RSS, ${((heapNow - heapBefore) / m / 1024).toFixed(0)} KiB heap per idle conversation`
        : "",
    ]);
    previous = now;
    if (r === 1) afterFirst = now;
    process.stdout.write(`memory round ${r} done\n`);
  }
  // A measurement pause, not a synchronisation: ended requests pass their TTL meanwhile, idle objects may be evicted.
  await sleep(opts.pauseMs);
  const after = workerdRss(pgrp).bytes;
  const heapAfter = await heap();
  rows.push([`after a ${(opts.pauseMs / 1000).toFixed(0)} s pause`, String(total), mib(after), mib(after - previous), mib(heapAfter), ""]);
  return `${table(["point", "conversations so far", "workerd RSS", "Δ since previous", "worker heap after GC", "per conversation"], rows)}\n\n${before.count} workerd process(es) in wrangler's group; ${m} conversations per round, ${AT_ONCE} at once, one short turn each; growth from round 1 to round ${1 + opts.rounds}: ${mib(previous - afterFirst)} (${opts.rounds > 0 ? mib((previous - afterFirst) / opts.rounds) : "n/a"} per round of ${m} ended conversations)`;
}
