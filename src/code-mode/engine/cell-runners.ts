// Which runner a session's cells get: the Worker Loader in this process (production, where
// Workers enforces each isolate's CPU and memory limits), or a cell host when one is
// configured (local and self-hosted workerd, which cannot stop a running isolate).
import { CELL_CPU_MS, LoaderCellRunner } from "./loader-runner.ts";
import { RemoteCellRunner } from "./remote-runner.ts";
import type { CellRunner } from "./runner.ts";

export interface CellRunnerEnv {
  LOADER: WorkerLoader;
  CODE_MODE_CELL_HOST?: string;
}

/** `cpuMs`: each cell's CPU limit (docs/code-mode.md#limits). */
export function cellRunnerFor(env: CellRunnerEnv, cpuMs = CELL_CPU_MS): CellRunner {
  const host = env.CODE_MODE_CELL_HOST?.trim();
  return host ? new RemoteCellRunner(host, cpuMs) : new LoaderCellRunner(env.LOADER, cpuMs);
}
