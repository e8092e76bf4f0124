// Each cell's CPU limit (docs/code-mode.md#limits): 30 s unless the user's team set its
// own (teams.code_mode_cpu_ms). Local workerd enforces no CPU limit, so what is checked
// is the limit each cell's isolate is loaded with, on the real LOADER.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LoaderCellRunner } from "../../../../src/code-mode/engine/loader-runner.ts";
import { CodeModeSession } from "../../../../src/code-mode/engine/session.ts";
import { MemoryValues, RecordingDelegate, request } from "../../../support/code-mode-engine.ts";
import { withTimeout } from "../../../support/deferred.ts";

/** The real loader, noting the limits each isolate is loaded with. */
function notingLoader(seen: (number | undefined)[]): WorkerLoader {
  return {
    get: (...args) => env.LOADER.get(...args),
    load: (code) => {
      seen.push(code.limits?.cpuMs);
      return env.LOADER.load(code);
    },
  } as WorkerLoader;
}

async function cpuOfOneCell(runner: (loader: WorkerLoader) => LoaderCellRunner): Promise<(number | undefined)[]> {
  const seen: (number | undefined)[] = [];
  const session = new CodeModeSession({ runner: runner(notingLoader(seen)), values: new MemoryValues(), limits: {} });
  const cell = session.execute(request('text("x")'), new RecordingDelegate());
  expect(await withTimeout(cell.initialResponse, 10_000, "the cell's result")).toMatchObject({ kind: "completed" });
  return seen;
}

describe("a cell's CPU limit", () => {
  it("loads each cell's isolate with 30 000 ms of CPU by default", async () => {
    expect(await cpuOfOneCell((loader) => new LoaderCellRunner(loader))).toEqual([30_000]);
  });

  it("loads each cell's isolate with the CPU its team set", async () => {
    expect(await cpuOfOneCell((loader) => new LoaderCellRunner(loader, 90_000))).toEqual([90_000]);
  });
});
