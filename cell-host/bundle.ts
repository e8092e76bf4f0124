// The worker each cell process runs: src/code-mode/engine/cell-worker.ts bundled once per
// cell host, and the workerd config that serves it with a Worker Loader binding.
import { build } from "esbuild";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ENTRY = resolve(import.meta.dirname, "../src/code-mode/engine/cell-worker.ts");
/** The main worker's (wrangler.toml): the cells run on the same runtime rules. */
const COMPATIBILITY_DATE = "2026-11-01";

/** Writes `cell-worker.js` and `cell-worker.capnp` into `dir`; returns the config's path. */
export async function writeCellWorker(dir: string): Promise<string> {
  const bundle = await build({
    entryPoints: [ENTRY],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    target: "es2024",
    external: ["cloudflare:*"],
    logLevel: "warning",
  });
  writeFileSync(join(dir, "cell-worker.js"), bundle.outputFiles[0]!.text);
  const config = join(dir, "cell-worker.capnp");
  writeFileSync(
    config,
    [
      'using Workerd = import "/workerd/workerd.capnp";',
      "const config :Workerd.Config = (",
      '  services = [ (name = "cells", worker = .cells) ],',
      '  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "cells") ],',
      ");",
      "const cells :Workerd.Worker = (",
      '  modules = [ (name = "cell-worker.js", esModule = embed "cell-worker.js") ],',
      `  compatibilityDate = "${COMPATIBILITY_DATE}",`,
      '  bindings = [ (name = "LOADER", workerLoader = ()) ],',
      ");",
      "",
    ].join("\n"),
  );
  return config;
}
