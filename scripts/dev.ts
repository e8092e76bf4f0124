// `npm run dev [-- wrangler flags]`: wrangler dev with the project's defaults,
// offline, with local D1 migrations applied first. The first run writes .dev.vars
// with fresh secrets and says how to sign in (scripts/dev-vars.ts).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";
import { experimental_readRawConfig } from "wrangler";
import { startCellHost } from "../cell-host/cell-host.ts";
import { DEFAULTS as CELL_HOST_DEFAULTS } from "../cell-host/options.ts";
import { firstRunBanner, writeDevVarsOnce } from "./dev-vars.ts";

const root = resolve(import.meta.dirname, "..");
const wrangler = resolve(root, "node_modules/.bin/wrangler");
const args = process.argv.slice(2);
const env = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

const devVarsPath = resolve(root, ".dev.vars");
const firstToken = writeDevVarsOnce(devVarsPath);
const devVars = existsSync(devVarsPath) ? parseEnv(readFileSync(devVarsPath, "utf8")) : {};
if (!devVars.BYOK_TOKEN && !devVars.ADMIN_TOKEN) {
  console.warn(
    [
      `byok-edge: ${existsSync(devVarsPath) ? ".dev.vars sets neither BYOK_TOKEN nor ADMIN_TOKEN" : "no .dev.vars found"}.`,
      "The server starts, but refuses every request until you configure it:",
      "  set BYOK_TOKEN in .dev.vars (one user; .dev.vars.example describes every setting),",
      "  or ADMIN_TOKEN and KEY_ENCRYPTION_KEY (teams: docs/hosting.md)",
      "",
    ].join("\n"),
  );
}

// The same persistence folder for the migrations and the server.
const persistTo = flagValue("--persist-to");
const persist = persistTo === undefined ? [] : ["--persist-to", persistTo];
const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "byok-edge", "--local", ...persist], {
  cwd: root,
  env: { ...env, CI: "true" },
  stdio: ["ignore", "ignore", "inherit"],
});
if (migrate.status !== 0) console.warn("byok-edge: applying local D1 migrations failed; usage will not be recorded");

// Every secret is optional, so wrangler.toml requires none, and wrangler dev then reads only
// the [vars] from .dev.vars. A copy of the config that requires what .dev.vars holds makes
// wrangler read those as secrets (never printed, unlike --var values). Its own --config wins.
const ownConfig = args.some((a) => a === "--config" || a === "-c" || a.startsWith("--config="));
const config = ownConfig ? [] : ["--config", writeDevConfig()];

function writeDevConfig(): string {
  const { rawConfig } = experimental_readRawConfig({ config: resolve(root, "wrangler.toml") });
  const required = Object.keys(devVars).filter((name) => !(name in (rawConfig.vars ?? {})));
  // Beside wrangler.toml, so its relative paths, .dev.vars and .wrangler/ state stay the same.
  const path = resolve(root, ".wrangler.dev.json");
  writeFileSync(path, `${JSON.stringify({ ...rawConfig, secrets: { required } }, null, 2)}\n`);
  return path;
}

const ip = flagValue("--ip");
if (firstToken !== undefined) console.log(firstRunBanner(`http://${ip ?? "127.0.0.1"}:${flagValue("--port") ?? "8787"}`, firstToken));

/** The value of a wrangler flag given after `--`, as `--flag value` or `--flag=value`. */
function flagValue(flag: string): string | undefined {
  const at = args.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
  if (at < 0) return undefined;
  return args[at]!.includes("=") ? args[at]!.slice(flag.length + 1) : (args[at + 1] ?? "");
}

// Code-mode cells run in a cell host beside wrangler: local workerd cannot stop a cell that
// loops or allocates without end, and one would stop the whole server (docs/code-mode.md#cell-host).
// A CODE_MODE_CELL_HOST of your own (in .dev.vars) is used as it is.
const cellHost = devVars.CODE_MODE_CELL_HOST ? undefined : await startCellHost({ ...CELL_HOST_DEFAULTS, port: 0 });
const cellHostVar = cellHost === undefined ? [] : ["--var", `CODE_MODE_CELL_HOST:${cellHost.url}`];
if (cellHost !== undefined) console.log(`byok-edge: code-mode cells run in a cell host at ${cellHost.url}`);

const child = spawn(wrangler, ["dev", ...(ip === undefined ? ["--ip", "127.0.0.1"] : []), ...config, ...cellHostVar, ...args], {
  cwd: root,
  env,
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
  void (cellHost?.close() ?? Promise.resolve()).finally(() => process.exit(code ?? (signal ? 1 : 0)));
});
