// The long fuzz run behind `npm run fuzz` (scripts/fuzz.ts starts it once Node
// transforms types): every property of test/fuzz/properties for --minutes N in all,
// split evenly, as many cases as fit. A failure is shrunk and printed with its seed,
// path and the command that replays it. See docs/testing.md#fuzzing.
import { parseArgs } from "node:util";
import fc from "fast-check";
import { allProperties } from "./properties/all.ts";
import { runOptions } from "./support/fuzz-property.ts";

const { values } = parseArgs({
  options: { minutes: { type: "string", default: "1" }, seed: { type: "string" }, path: { type: "string" }, only: { type: "string" } },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) throw new Error(`--minutes must be a positive number, not ${values.minutes}`);
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isInteger(seed)) throw new Error(`--seed must be an integer, not ${values.seed}`);

const selected = allProperties.filter((p) => values.only === undefined || p.name.includes(values.only));
if (selected.length === 0) throw new Error(`no property's name contains ${JSON.stringify(values.only)}`);
const sliceMs = (minutes * 60_000) / selected.length;
const replaying = values.path !== undefined;
console.log(
  replaying
    ? `replaying ${selected.length} propert${selected.length === 1 ? "y" : "ies"} at seed ${seed} path ${values.path}`
    : `fuzzing ${selected.length} properties for ${minutes} min (${Math.round(sliceMs / 1000)} s each)`,
);

let failures = 0;
for (const property of selected) {
  const started = Date.now();
  let details = await fc.check(
    property.property,
    runOptions(property, {
      // Unbounded but for the time slice; a replay runs its one path.
      numRuns: replaying ? property.runs : Number.MAX_SAFE_INTEGER,
      ...(!replaying && { timeLimitMs: sliceMs }),
      ...(seed !== undefined && { seed }),
      ...(values.path !== undefined && { path: values.path }),
    }),
  );
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (!details.failed) {
    console.log(`ok    ${property.name} (${details.numRuns} cases, ${seconds} s, seed ${details.seed})`);
    continue;
  }
  failures++;
  console.log(`FAIL  ${property.name} (after ${details.numRuns} cases, ${seconds} s)`);
  // The time limit also cuts shrinking short: replay the failing case without it to shrink it.
  if (!replaying && details.counterexamplePath !== null) {
    details = await fc.check(property.property, runOptions(property, { seed: details.seed, path: details.counterexamplePath }));
  }
  console.log(fc.defaultReportMessage(details));
  if (details.errorInstance !== null) console.log(details.errorInstance);
  console.log(
    `replay: npm run fuzz -- --only ${JSON.stringify(property.name)} --seed=${details.seed} --path=${JSON.stringify(details.counterexamplePath ?? "")}`,
  );
}
console.log(failures === 0 ? "all properties held" : `${failures} propert${failures === 1 ? "y" : "ies"} failed`);
process.exit(failures === 0 ? 0 : 1);
