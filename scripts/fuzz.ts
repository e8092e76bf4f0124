// `npm run fuzz -- --minutes N`: the properties of test/fuzz run for N minutes in
// all (split evenly), as many cases as fit, instead of the bounded count of
// `npm test`. A failure prints fast-check's report (seed, path, counterexample)
// and the command that replays it:
//   npm run fuzz -- --only "<property name>" --seed=S --path=P   (= because seeds can be negative)
// `--only TEXT` keeps the properties whose name contains TEXT. See docs/testing.md#fuzzing.
import { ensureTransformTypes } from "../lib/relaunch.ts";

await ensureTransformTypes(import.meta.filename);
// By URL: the run is type-checked with the tests (Workers types), not with the Node scripts.
await import(new URL("../test/fuzz/long-run.ts", import.meta.url).href);
