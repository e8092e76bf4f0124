// The workerd processes of a `wrangler dev` (its process group), read from /proc:
// their memory (VmRSS) for the memory section and their CPU time (utime + stime,
// every thread) for the CPU figures (docs/benchmarks.md#cpu).
import { readdirSync, readFileSync } from "node:fs";

/** Linux reports CPU time in clock ticks; 100 per second on every mainstream kernel config. */
const TICK_MS = 10;

interface ProcessStat {
  pid: number;
  comm: string;
  pgrp: number;
  /** utime + stime, ms. */
  cpuMs: number;
}

/** Every process we can read. */
function processes(): ProcessStat[] {
  const out: ProcessStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" "); // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
      out.push({ pid: Number(entry), comm, pgrp: Number(fields[2]), cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function workerdOf(pgrp: number): ProcessStat[] {
  return processes().filter((p) => p.pgrp === pgrp && p.comm.startsWith("workerd"));
}

function vmRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? 0 : Number(kb) * 1024;
}

/** Summed RSS of the workerd processes in the group, and how many there are. */
export function workerdRss(pgrp: number): { bytes: number; count: number } {
  const workerd = workerdOf(pgrp);
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

/** CPU time the group's workerd processes have used so far, ms (10 ms resolution). */
export function workerdCpuMs(pgrp: number): number {
  return workerdOf(pgrp).reduce((sum, p) => sum + p.cpuMs, 0);
}

/** Runs `work` and says how much workerd CPU it took. */
export async function cpuOf<T>(pgrp: number, work: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  const before = workerdCpuMs(pgrp);
  const result = await work();
  return { result, cpuMs: workerdCpuMs(pgrp) - before };
}
