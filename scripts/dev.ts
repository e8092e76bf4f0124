// `npm run dev [-- wrangler flags]`: wrangler dev with the project's defaults,
// offline, with local D1 migrations applied first. Starts without .dev.vars too,
// and says what to configure.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseEnv } from "node:util";

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
if (!existsSync(devVarsPath)) {
  console.warn(
    [
      "byok-edge: no .dev.vars found. The server starts, but refuses every request until you configure it:",
      "  cp .dev.vars.example .dev.vars   # then set BYOK_TOKEN and BYOK_MODELS",
      "",
    ].join("\n"),
  );
}

// The same persistence folder for the migrations and the server.
const persistIndex = args.findIndex((a) => a === "--persist-to" || a.startsWith("--persist-to="));
const persist =
  persistIndex < 0 ? [] : args[persistIndex]!.includes("=") ? [args[persistIndex]!] : [args[persistIndex]!, args[persistIndex + 1] ?? ""];
const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "byok-edge", "--local", ...persist], {
  cwd: root,
  env: { ...env, CI: "true" },
  stdio: ["ignore", "ignore", "inherit"],
});
if (migrate.status !== 0) console.warn("byok-edge: applying local D1 migrations failed; usage will not be recorded");

// wrangler dev reads only the required secrets and the [vars] from .dev.vars; optional
// secrets are passed on as --var so they work locally too.
const OPTIONAL_SECRETS = ["BYOK_SEARCH"];
const devVars = existsSync(devVarsPath) ? parseEnv(readFileSync(devVarsPath, "utf8")) : {};
const optional = OPTIONAL_SECRETS.flatMap((name) => (devVars[name] ? ["--var", `${name}:${devVars[name]}`] : []));

const hasIp = args.some((a) => a === "--ip" || a.startsWith("--ip="));
const child = spawn(wrangler, ["dev", ...(hasIp ? [] : ["--ip", "127.0.0.1"]), ...optional, ...args], { cwd: root, env, stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
