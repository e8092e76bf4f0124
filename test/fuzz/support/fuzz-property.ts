// One fuzzed property and how it runs: a bounded number of cases under `npm test`
// (test/fuzz/*.test.ts), as many as fit in the time under `npm run fuzz`
// (scripts/fuzz.ts). Both use these options, so a seed printed by either replays
// in the other (docs/testing.md#fuzzing).
import fc from "fast-check";
import { it } from "vitest";

export interface FuzzProperty {
  /** A sentence of behaviour, the test's name. */
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: properties of any arbitraries share one list
  property: fc.IRawProperty<any, boolean>;
  /** Cases under `npm test`: the heavier properties take fewer so the whole bounded run stays short. */
  runs: number;
}

/** Longest one case may take: an async predicate still running then is a hang, and fails. */
const CASE_TIMEOUT_MS = 2_000;

/** The options of one property's run; `seed` and `path` replay a failure that fast-check printed. */
export function runOptions(
  property: FuzzProperty,
  options: { numRuns?: number; timeLimitMs?: number; seed?: number; path?: string } = {},
): fc.Parameters<unknown> {
  const plugins: fc.Plugin<unknown>[] = [fc.timeout(CASE_TIMEOUT_MS)];
  if (options.timeLimitMs !== undefined) plugins.push(fc.interruptAfterTimeLimit(options.timeLimitMs));
  return {
    numRuns: options.numRuns ?? property.runs,
    plugins,
    ...(options.seed !== undefined && { seed: options.seed }),
    ...(options.path !== undefined && { path: options.path }),
  };
}

/** One vitest case per property, with its bounded number of runs. */
export function testProperties(properties: FuzzProperty[]): void {
  for (const property of properties) {
    it(property.name, async () => {
      await fc.assert(property.property, runOptions(property));
    });
  }
}
