// Starts and stops a hermetic `wrangler dev` for the e2e check and the benchmark.
//
// - Runs wrangler with this process's Node (Node 22 under `npm run`), in its own
//   process group (setsid), so the shim, cli.js, workerd and esbuild all end with
//   one signal to the group.
// - Offline: no metrics, no error reports, no cf.json fetch.
// - Hermetic. Tested with wrangler 4.164 and this project's wrangler.toml:
//   * a --var wins over .dev.vars, but only for the keys it names: any other key
//     in a developer's .dev.vars (or .env) still reaches the worker;
//   * given --env-file, wrangler reads neither .dev.vars nor .env;
//   * because wrangler.toml declares [secrets] required, wrangler keeps only the
//     required secrets and [vars] keys from an env file (BYOK_BENCH_ROUTES would be
//     dropped), and it also takes them from process.env, which beats the file.
//   So every var goes in a temporary --env-file (which shuts out .dev.vars/.env
//   and satisfies the required-secrets check) and is also passed as --var (which
//   always wins and is not filtered), and BYOK_* is removed from the child's env.
// - Isolated from edits: wrangler dev rebuilds and restarts the worker whenever a
//   source file changes, and its CLI cannot turn that off. So it runs on a copy of
//   the working tree (all but .git, node_modules, .wrangler, .e2e, .dev.vars*,
//   .env*, *.log; about 3 MB, node_modules symlinked) in the temp dir: saving a file during a
//   run cannot restart the worker mid-turn, and the copy's own .wrangler/tmp is
//   not shared with another wrangler or vitest run in the project.
// - Ready = wrangler's "Ready on http://127.0.0.1:<port>" stdout line, bounded.
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { startCellHost } from "../../cell-host/cell-host.ts";
import { DEFAULTS as CELL_HOST_DEFAULTS, type CellHostOptions } from "../../cell-host/options.ts";

export const PROJECT_ROOT = resolve(import.meta.dirname, "../..");
const WRANGLER_JS = join(PROJECT_ROOT, "node_modules/wrangler/bin/wrangler.js");
const READY_TIMEOUT_MS = 60_000;
const MIGRATE_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

export interface WranglerDev {
  baseUrl: string;
  port: number;
  /** workerd's inspector (CDP), for profiling the worker (bench/inspector.ts). */
  inspectorPort: number;
  logFile: string;
  /** wrangler's pid, which is also its process group id (setsid): the bench reads its workerd children's memory. */
  pid: number | undefined;
  /** The last `lines` lines of wrangler's combined output. */
  tail(lines?: number): string;
  /** Whole log so far. */
  log(): string;
  /** SIGTERM to the process group, SIGKILL after a grace period; its output is complete after. Idempotent. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Worker vars (env file + --var; .dev.vars and .env are never read). */
  vars: Record<string, string>;
  /** Directory for persistence, logs and the env file; created by makeTempDir(). */
  workDir: string;
  /** Apply the local D1 migrations into the same persistence dir (done before this resolves). */
  migrateD1?: boolean;
  /** The cell host its code-mode cells run in (cell-host/), started with these settings; false: none (cells on the Worker Loader). */
  cellHost?: Partial<CellHostOptions> | false;
}

/** A fresh temp dir; the caller removes it with removeTempDir(). */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A port that was free a moment ago on 127.0.0.1. */
async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

function childEnv(workDir: string): NodeJS.ProcessEnv {
  const bin = join(PROJECT_ROOT, "node_modules/.bin");
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("BYOK_")));
  return {
    ...inherited,
    PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_SEND_ERROR_REPORTS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    CLOUDFLARE_INCLUDE_PROCESS_ENV: "false",
    WRANGLER_LOG_PATH: join(workDir, "wrangler-debug-logs"),
    NO_COLOR: "1",
    FORCE_COLOR: "0",
    CI: "true", // non-interactive: no hotkeys, no prompts
  };
}

function envFileText(vars: Record<string, string>): string {
  // dotenv: single quotes keep JSON (double quotes, braces) literal.
  return Object.entries(vars)
    .map(([key, value]) => {
      if (value.includes("'") || value.includes("\n")) throw new Error(`var ${key}: value must not contain ' or newlines`);
      return `${key}='${value}'`;
    })
    .join("\n");
}

const SNAPSHOT_SKIP = /^(\.git|node_modules|\.wrangler|\.e2e|\.cache|\.dev\.vars.*|\.env.*|.*\.log)$/;

/** Copies the working tree into `${workDir}/project` (once) and returns that path. */
function snapshotProject(workDir: string): string {
  const root = join(workDir, "project");
  if (existsSync(root)) return root;
  mkdirSync(root);
  for (const entry of readdirSync(PROJECT_ROOT)) {
    if (SNAPSHOT_SKIP.test(entry)) continue;
    cpSync(join(PROJECT_ROOT, entry), join(root, entry), { recursive: true });
  }
  symlinkSync(join(PROJECT_ROOT, "node_modules"), join(root, "node_modules"), "dir");
  return root;
}

/** Runs a wrangler command to completion (bounded) in the snapshot; rejects with its output on failure. */
export async function runWrangler(args: string[], workDir: string, timeoutMs: number): Promise<string> {
  const child = spawn(process.execPath, [WRANGLER_JS, ...args], {
    cwd: snapshotProject(workDir),
    env: childEnv(workDir),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  liveChildren.add(child);
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), timeoutMs);
  try {
    const code = await new Promise<number | null>((res, rej) => {
      child.once("error", rej);
      child.once("exit", (c) => res(c));
    });
    if (code !== 0) throw new Error(`wrangler ${args.join(" ")} exited ${code}:\n${output}`);
    return output;
  } finally {
    clearTimeout(timer);
    killGroup(child, "SIGKILL"); // anything it left behind in its group
    liveChildren.delete(child);
  }
}

export async function startWranglerDev(opts: StartOptions): Promise<WranglerDev> {
  // Cells run where a runaway one can be stopped, as under `npm run dev` (docs/code-mode.md#cell-host).
  const cellHost =
    opts.cellHost === false || opts.vars.CODE_MODE_CELL_HOST !== undefined
      ? undefined
      : await startCellHost({ ...CELL_HOST_DEFAULTS, port: 0, ...opts.cellHost });
  if (cellHost !== undefined) onCleanup(() => cellHost.close());
  const vars = cellHost === undefined ? opts.vars : { ...opts.vars, CODE_MODE_CELL_HOST: cellHost.url };
  const dev = await startWorker({ ...opts, vars });
  if (cellHost === undefined) return dev;
  return {
    ...dev,
    stop: async () => {
      await dev.stop();
      await cellHost.close();
    },
  };
}

async function startWorker(opts: StartOptions): Promise<WranglerDev> {
  const persistDir = join(opts.workDir, "state");
  const envFile = join(opts.workDir, "worker.env");
  writeFileSync(envFile, envFileText(opts.vars), { mode: 0o600 });
  snapshotProject(opts.workDir);

  // Applied while wrangler dev starts (both only open the same SQLite files; no
  // request reaches the worker before both are done). Saves about 3 s.
  const migrated = opts.migrateD1
    ? runWrangler(["d1", "migrations", "apply", "byok-edge", "--local", "--persist-to", persistDir], opts.workDir, MIGRATE_TIMEOUT_MS)
    : Promise.resolve("");
  migrated.catch(() => {}); // awaited below

  return launch(opts.workDir, migrated, (port, inspectorPort) => [
    WRANGLER_JS,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-ip",
    "127.0.0.1",
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    persistDir,
    "--env-file",
    envFile,
    ...Object.entries(opts.vars).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
    "--show-interactive-dev-session=false",
    "--log-level",
    "info",
  ]);
}

/**
 * `npm run dev` as a new user runs it (scripts/dev.ts), in a snapshot with no .dev.vars:
 * the first run writes one and prints how to sign in. `project` is the snapshot, whose
 * .dev.vars the caller may read.
 */
export async function startFirstRunDev(workDir: string): Promise<WranglerDev & { project: string }> {
  const project = snapshotProject(workDir);
  const dev = await launch(workDir, Promise.resolve(""), (port, inspectorPort) => [
    join(project, "scripts/dev.ts"),
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--persist-to",
    join(workDir, "state"),
    "--show-interactive-dev-session=false",
  ]);
  return { ...dev, project };
}

/** Spawns `node <args>` in the snapshot, in its own process group, and resolves once wrangler says it is ready. */
async function launch(
  workDir: string,
  migrated: Promise<string>,
  argsFor: (port: number, inspectorPort: number) => string[],
): Promise<WranglerDev> {
  const logFile = join(workDir, "wrangler.log");
  const port = await freePort();
  const inspectorPort = await freePort();
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, argsFor(port, inspectorPort), {
    cwd: snapshotProject(workDir),
    env: childEnv(workDir),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // setsid: its own process group, killed as a whole
  });
  // "close": the process exited and its output pipes are drained.
  const exited = new Promise<void>((res) => child.once("close", () => res()));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, "SIGTERM");
      const graceful = await Promise.race([exited.then(() => true), delay(STOP_GRACE_MS).then(() => false)]);
      if (!graceful) killGroup(child, "SIGKILL");
    }
    // Children (workerd) may outlive the leader briefly; the group kill reaches them too.
    killGroup(child, "SIGKILL");
    await Promise.race([exited, delay(STOP_GRACE_MS)]);
    await new Promise<void>((res) => log.end(() => res()));
  };
  stopHooks.add(stop);
  liveChildren.add(child);
  void exited.then(() => liveChildren.delete(child));

  let stdoutText = "";
  let allText = ""; // the file lags behind (async writes); tails come from memory
  child.stdout?.on("data", (d: Buffer) => {
    log.write(d);
    stdoutText += d.toString();
    allText += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    log.write(d);
    allText += d.toString();
  });

  const readText = () => stripAnsi(allText);
  const dev: WranglerDev = {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    inspectorPort,
    logFile,
    pid: child.pid,
    log: readText,
    tail: (lines = 40) => readText().split("\n").slice(-lines).join("\n"),
    stop: async () => {
      stopHooks.delete(stop);
      await stop();
    },
  };

  try {
    await new Promise<void>((res, rej) => {
      const timer = setTimeout(() => rej(new Error(`wrangler dev was not ready within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
      const check = () => {
        // A build error leaves wrangler running (it waits for a fix), so it is fatal here.
        if (/Build failed/.test(allText)) {
          clearTimeout(timer);
          rej(new Error("wrangler dev could not build the worker"));
        } else if (stdoutText.includes(`Ready on http://127.0.0.1:${port}`)) {
          clearTimeout(timer);
          child.stdout?.off("data", check);
          child.stderr?.off("data", check);
          res();
        }
      };
      child.stdout?.on("data", check);
      child.stderr?.on("data", check);
      child.once("error", (e) => {
        clearTimeout(timer);
        rej(e);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        rej(new Error(`wrangler dev exited early (code ${code}, signal ${signal})`));
      });
      check();
    });
    await migrated;
  } catch (error) {
    await dev.stop(); // first: wrangler's last lines arrive as it exits
    await migrated.catch(() => {});
    const tail = dev.tail();
    throw new Error(`${(error as Error).message}\n--- wrangler log tail ---\n${tail}`);
  }
  return dev;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // group already gone
  }
}

function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes start with ESC
  return text.replace(/\u001b\[[0-9;]*m/g, "");
}

function delay(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}

// ---- cleanup on every way out ----

const stopHooks = new Set<() => Promise<void>>();
const liveChildren = new Set<ChildProcess>();
const cleanups = new Set<() => Promise<void> | void>();

/** Registers a cleanup (server close, temp dir removal) run by runCleanups(). */
export function onCleanup(fn: () => Promise<void> | void): void {
  cleanups.add(fn);
}

/** Stops every wrangler started here, then runs the other cleanups. Bounded. */
export async function runCleanups(): Promise<void> {
  await Promise.allSettled([...stopHooks].map((stop) => stop()));
  stopHooks.clear();
  for (const child of liveChildren) killGroup(child, "SIGKILL"); // e.g. a migration still running
  for (const fn of [...cleanups].reverse()) {
    try {
      await Promise.race([fn(), delay(STOP_GRACE_MS)]);
    } catch {
      // best effort
    }
  }
  cleanups.clear();
}

let exiting = false;

/** True once SIGINT/SIGTERM/an uncaught error started the emergency cleanup. */
export function isExiting(): boolean {
  return exiting;
}

/** SIGINT/SIGTERM/uncaught errors: clean up, then exit non-zero. */
export function installExitHandlers(): void {
  const bail = (why: string, error?: unknown) => {
    if (exiting) return;
    exiting = true;
    if (error !== undefined) console.error(`${why}:`, error);
    else console.error(why);
    void runCleanups().finally(() => process.exit(1));
  };
  process.once("SIGINT", () => bail("interrupted (SIGINT)"));
  process.once("SIGTERM", () => bail("terminated (SIGTERM)"));
  process.on("uncaughtException", (e) => bail("uncaught exception", e));
  process.on("unhandledRejection", (e) => bail("unhandled rejection", e));
  // Last resort if something calls process.exit directly: synchronous group kill.
  process.once("exit", () => {
    for (const child of liveChildren) killGroup(child, "SIGKILL");
  });
}
