// The cell host's settings (docs/code-mode.md#cell-host), from flags or the environment.
import { parseArgs } from "node:util";

export interface CellHostOptions {
  /** 0: any free port. */
  port: number;
  /** Processes kept started ahead of need. */
  warm: number;
  /** Cells running at once; one more is refused with a cell error. */
  maxCells: number;
  /** Resident memory a cell may add to its process. */
  memoryBytes: number;
  /** A cap on every cell's CPU time, below the one its session asks for (none: 0). */
  cpuCapMs: number;
  /** Wall time a cell may run, waiting included. */
  wallMs: number;
}

/** @internal The defaults, also for hosts that tests, `npm run dev` and the e2e launcher start in-process. */
export const DEFAULTS: CellHostOptions = {
  port: 8790,
  warm: 2,
  maxCells: 32,
  memoryBytes: 128 * 1024 * 1024,
  cpuCapMs: 0,
  wallMs: 15 * 60_000,
};

const FLAGS = {
  port: "CELL_HOST_PORT",
  warm: "CELL_HOST_WARM",
  "max-cells": "CELL_HOST_MAX_CELLS",
  "memory-mb": "CELL_HOST_MEMORY_MB",
  "cpu-cap-ms": "CELL_HOST_CPU_CAP_MS",
  "wall-ms": "CELL_HOST_WALL_MS",
} as const;

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv): CellHostOptions {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(Object.keys(FLAGS).map((flag) => [flag, { type: "string" }])) as Record<
      keyof typeof FLAGS,
      { type: "string" }
    >,
  });
  const number = (flag: keyof typeof FLAGS, fallback: number): number => {
    const text = values[flag] ?? env[FLAGS[flag]];
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 0) throw new Error(`--${flag} must be a whole number ≥ 0, not ${JSON.stringify(text)}`);
    return value;
  };
  return {
    port: number("port", DEFAULTS.port),
    warm: number("warm", DEFAULTS.warm),
    maxCells: Math.max(1, number("max-cells", DEFAULTS.maxCells)),
    memoryBytes: number("memory-mb", DEFAULTS.memoryBytes / 1024 / 1024) * 1024 * 1024,
    cpuCapMs: number("cpu-cap-ms", DEFAULTS.cpuCapMs),
    wallMs: number("wall-ms", DEFAULTS.wallMs),
  };
}
