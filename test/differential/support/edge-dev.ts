// byok-edge under a hermetic `wrangler dev`, through the e2e check's own
// launcher (e2e/support/wrangler-dev.ts: setsid, process-group stop, temp
// persistence, vars shut off from .dev.vars). It is a Node-only module typed by
// e2e/tsconfig.json; imported by path here so that the test project, which
// carries the Workers types, does not typecheck it a second time.
import { resolve } from "node:path";

interface WranglerDev {
  baseUrl: string;
  tail(lines?: number): string;
  stop(): Promise<void>;
}

interface WranglerDevModule {
  makeTempDir(prefix: string): string;
  removeTempDir(dir: string): void;
  startWranglerDev(options: { vars: Record<string, string>; workDir: string; migrateD1?: boolean }): Promise<WranglerDev>;
}

const LAUNCHER = resolve(import.meta.dirname, "../../../e2e/support/wrangler-dev.ts");

export interface EdgeDev {
  baseUrl: string;
  stop(): Promise<void>;
}

/** Starts byok-edge with `vars`; `stop` ends wrangler, then removes its temp dir. */
export async function startEdgeDev(vars: Record<string, string>): Promise<EdgeDev> {
  const launcher = (await import(LAUNCHER)) as WranglerDevModule;
  const workDir = launcher.makeTempDir("byok-code-mode");
  try {
    const dev = await launcher.startWranglerDev({ workDir, vars, migrateD1: true });
    return {
      baseUrl: dev.baseUrl,
      stop: async () => {
        await dev.stop();
        launcher.removeTempDir(workDir);
      },
    };
  } catch (error) {
    launcher.removeTempDir(workDir);
    throw error;
  }
}
