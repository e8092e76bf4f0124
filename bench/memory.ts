// Memory section of `npm run bench` (docs/benchmarks.md#memory): the summed VmRSS of
// the workerd processes in wrangler dev's process group (read from /proc), before
// and after M conversations (one short turn each, then idle): Δ/M per idle
// conversation object; then R more rounds of M conversations, all ended, to show
// whether RSS keeps growing after conversations end; then once more after a pause.
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { StreamServer } from "./fake-stream-server.ts";
import { mib, pool, table } from "./stats.ts";
import { byokTurn } from "./turn-client.ts";

const SHORT = { chunks: 2, intervalMs: 5 };
const AT_ONCE = 8;

/** pid → {comm, pgrp} of every process we can read. */
function processes(): { pid: number; comm: string; pgrp: number }[] {
  const out: { pid: number; comm: string; pgrp: number }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" "); // state ppid pgrp …
      out.push({ pid: Number(entry), comm, pgrp: Number(fields[2]) });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function vmRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

/** Summed RSS of the workerd processes in the group, and how many there are. */
export function workerdRss(pgrp: number): { bytes: number; count: number } {
  const workerd = processes().filter((p) => p.pgrp === pgrp && p.comm.startsWith("workerd"));
  let bytes = 0;
  for (const p of workerd) {
    try {
      bytes += vmRssBytes(p.pid);
    } catch {
      // exited meanwhile
    }
  }
  return { bytes, count: workerd.length };
}

export async function memoryReport(opts: {
  baseUrl: string;
  server: StreamServer;
  token: string;
  model: string;
  pgrp: number;
  conversations: number;
  rounds: number;
  pauseMs: number;
}): Promise<string> {
  const { baseUrl, server, token, model, pgrp, conversations: m } = opts;
  const round = () => pool(Array.from({ length: m }), AT_ONCE, () => byokTurn({ baseUrl, server, token, model, plan: SHORT }));
  const rows: string[][] = [];
  await byokTurn({ baseUrl, server, token, model, plan: SHORT }); // warm-up, not counted: loads the worker's code paths
  const before = workerdRss(pgrp);
  if (before.count === 0) throw new Error(`memory: no workerd process in process group ${pgrp}`);
  rows.push(["before", "0", mib(before.bytes), "", ""]);
  let total = 0;
  let previous = before.bytes;
  let afterFirst = Number.NaN;
  for (let r = 1; r <= 1 + opts.rounds; r++) {
    await round();
    total += m;
    const now = workerdRss(pgrp).bytes;
    rows.push([
      r === 1 ? `after round 1 (${m} idle conversations)` : `after round ${r}`,
      String(total),
      mib(now),
      mib(now - previous),
      r === 1 ? `${((now - before.bytes) / m / 1024).toFixed(0)} KiB per idle conversation` : "",
    ]);
    previous = now;
    if (r === 1) afterFirst = now;
    process.stdout.write(`memory round ${r} done\n`);
  }
  await sleep(opts.pauseMs); // a measurement pause, not a synchronisation: idle objects may be evicted meanwhile
  const after = workerdRss(pgrp).bytes;
  rows.push([`after a ${(opts.pauseMs / 1000).toFixed(0)} s pause`, String(total), mib(after), mib(after - previous), ""]);
  return `${table(["point", "conversations so far", "workerd RSS", "Δ since previous", "per conversation"], rows)}\n\n${before.count} workerd process(es) in wrangler's group; ${m} conversations per round, ${AT_ONCE} at once, one short turn each; growth from round 1 to round ${1 + opts.rounds}: ${mib(previous - afterFirst)} (${opts.rounds > 0 ? mib((previous - afterFirst) / opts.rounds) : "n/a"} per round of ${m} ended conversations)`;
}
