// `npm run bench`: the benchmark suite (bench/main.ts, docs/benchmarks.md).
//   npm run bench -- --runs 5 --chunks 50 --interval 20 --appends 10
//   npm run bench -- --only concurrency --sizes 25,50
//   npm run bench -- --quick          (tiny sizes: checks that every section works)
import { ensureTransformTypes } from "../lib/relaunch.ts";

await ensureTransformTypes(import.meta.filename);
await import("./main.ts");
