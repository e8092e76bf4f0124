// CPU of a worker's profile by the source files its functions come from (docs/benchmarks.md#tracing).
// In `wrangler dev` the worker is one bundle (worker.js); its source map says which of the project's
// files, or which package, a profiled function was written in, so a sample can be charged to a part
// of the code wherever the bundle placed it.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";
import type { CpuProfile } from "./inspector.ts";

/** The source map of the bundle wrangler dev serves from the project snapshot in `workDir` (e2e/support/wrangler-dev.ts): its newest. */
export function devBundleMap(workDir: string): string {
  const tmp = join(workDir, "project", ".wrangler", "tmp");
  const maps = readdirSync(tmp)
    .filter((entry) => entry.startsWith("dev-"))
    .map((entry) => join(tmp, entry, "worker.js.map"))
    .filter((file) => existsSync(file));
  const newest = maps.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  if (!newest) throw new Error(`no wrangler dev bundle under ${tmp}`);
  return newest;
}

/** A frame as the classifier sees it: the function's name and the source file it was written in (or its URL). */
export interface SourceFrame {
  functionName: string;
  source: string;
}

/**
 * Sample time (ms) per category. A sample's category is the highest-ranked one that `classify`
 * gives any frame of its stack (so a library called from tracing code counts as tracing); 0 is
 * "none". `busyMs` is every sample but (idle); (program) and (garbage collector) have no stack
 * of ours, so they count as busy and go to category 0.
 */
export function timeByCategory(
  profile: CpuProfile,
  mapFile: string,
  classify: (frame: SourceFrame) => number,
): { byCategory: Map<number, number>; busyMs: number } {
  const map = new TraceMap(readFileSync(mapFile, "utf8"));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const categoryOf = new Map<number, number>();
  const category = (id: number): number => {
    const known = categoryOf.get(id);
    if (known !== undefined) return known;
    const node = nodes.get(id)!;
    const up = parent.get(id);
    const frame = node.callFrame;
    const source =
      frame.url === "worker.js" && frame.lineNumber >= 0
        ? (originalPositionFor(map, { line: frame.lineNumber + 1, column: Math.max(0, frame.columnNumber) }).source ?? frame.url)
        : frame.url;
    const own = classify({ functionName: frame.functionName, source });
    const result = Math.max(own, up === undefined ? 0 : category(up));
    categoryOf.set(id, result);
    return result;
  };
  const byCategory = new Map<number, number>();
  let busyMs = 0;
  const deltas = profile.timeDeltas ?? [];
  for (const [i, id] of (profile.samples ?? []).entries()) {
    const ms = (deltas[i] ?? 0) / 1000;
    if (nodes.get(id)?.callFrame.functionName === "(idle)") continue;
    busyMs += ms;
    const c = category(id);
    byCategory.set(c, (byCategory.get(c) ?? 0) + ms);
  }
  return { byCategory, busyMs };
}
