// `npm run bench`: latency that byok-edge adds to a streamed turn, against a
// plain passthrough through the same worker. See bench/main.ts and docs/benchmarks.md.
//   npm run bench -- --runs 5 --chunks 50 --interval 20 --appends 10
import { ensureTransformTypes } from "../e2e/support/relaunch.ts";

await ensureTransformTypes(import.meta.filename);
await import("./main.ts");
