// The connector's command line (connector/main.ts, connector/options.ts) and its
// routed paths: the token only ever comes from the named variable and is never
// printed, bad input gets a clear error and exit 2, and the Cursor RPC paths the
// worker serves are classified: routed to the deployment or left with Cursor. "The
// paths the worker serves" is exactly what the test can see: UNARY_ROUTES, plus the
// routes src/worker.ts registers with a string literal (`app.post("/pkg.Service/Method", …)`);
// a route registered in another file or from a variable is not seen.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConnectArgs } from "../../../connector/options.ts";
import { AGENT_PATHS, CATALOGUE_PATHS, isRoutedHost, isRoutedPath, STAYS_WITH_CURSOR } from "../../../connector/routes.ts";
import { UNARY_ROUTES } from "../../../src/cursor/routes/unary-routes.ts";
import { withTimeout } from "../../support/deferred.ts";

const MAIN = resolve(import.meta.dirname, "../../../connector/main.ts");
const SECRET = "byok_secret-that-must-never-be-printed";

/** Runs the CLI to its end (it must end by itself: these invocations never start the proxy). */
async function run(args: string[], env: Record<string, string | undefined> = {}) {
  // Only what the CLI needs: no token variable of the test's own environment leaks in.
  const childEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as unknown as NodeJS.ProcessEnv;
  const child = spawn(process.execPath, [MAIN, ...args], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const code = await withTimeout(
    new Promise<number | null>((res) => child.once("exit", (c: number | null) => res(c))),
    15_000,
    `byok-connect ${args.join(" ")}`,
  ).finally(() => child.kill());
  return { code, stdout, stderr };
}

describe("byok-connect", () => {
  it("stops with exit 2 and says which variable when the token variable is unset or empty", async () => {
    const dir = mkdtempSync(join(tmpdir(), "byok-conn-cli-"));
    try {
      for (const env of [{}, { MY_TOKEN: "" }] as Record<string, string>[]) {
        const out = await run(["--url", "https://byok.example.com", "--token-env", "MY_TOKEN", "--config-dir", dir], env);
        expect(out.code).toBe(2);
        expect(out.stderr).toContain("MY_TOKEN is not set or empty");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("stops with exit 2 and says to log in when neither a variable nor a kept login gives a token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "byok-conn-cli-"));
    try {
      const out = await run(["--url", "https://byok.example.com", "--config-dir", dir]);
      expect(out.code).toBe(2);
      expect(out.stderr).toContain("no token: log in with --login");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--print-cli prints the endpoint and the variable's name, never the token", async () => {
    const out = await run(["--url", "https://byok.example.com/", "--token-env", "MY_TOKEN", "--print-cli"], { MY_TOKEN: SECRET });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("CURSOR_API_ENDPOINT=https://byok.example.com ");
    expect(out.stdout).toContain('CURSOR_API_KEY="$MY_TOKEN"');
    expect(out.stdout + out.stderr).not.toContain(SECRET);
  });

  it("refuses a token on the command line and a URL that is not http(s)", async () => {
    const flag = await run(["--url", "https://byok.example.com", "--token", SECRET]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).not.toContain(SECRET);
    const ftp = await run(["--url", "ftp://byok.example.com", "--token-env", "T"], { T: "x" });
    expect(ftp.code).toBe(2);
    expect(ftp.stderr).toContain("--url must be http:// or https://");
  });

  it("warns about plain http to another machine and about listening beyond loopback", () => {
    const parse = (...args: string[]) => parseConnectArgs(["--token-env", "T", ...args], { T: "x" });
    const remote = parse("--url", "http://byok.example.com");
    expect(remote.kind === "run" && remote.options.warnings).toEqual([expect.stringContaining("plain http to byok.example.com")]);
    const local = parse("--url", "http://127.0.0.1:8787");
    expect(local.kind === "run" && local.options.warnings).toEqual([]);
    const open = parse("--url", "https://byok.example.com", "--host", "0.0.0.0");
    expect(open.kind === "run" && open.options.warnings).toEqual([expect.stringContaining("not loopback")]);
    expect(parse("--url", "https://byok.example.com", "--port", "70000")).toMatchObject({ kind: "error" });
    expect(parse("--url", "https://user:pw@byok.example.com")).toMatchObject({ kind: "error" });
  });
});

/**
 * The Cursor RPC paths src/worker.ts routes with a string literal (`app.all|get|post|put("/pkg.Service/Method", …)`),
 * read from its source by a pattern: the worker cannot be imported outside the Workers runtime.
 */
function workerRpcPaths(): string[] {
  const source = readFileSync(resolve(import.meta.dirname, "../../../src/worker.ts"), "utf8");
  return [...source.matchAll(/app\.(?:all|get|post|put)\(\s*"(\/[\w.]+\.[\w]+\/\w+)"/g)].map((m) => m[1]!);
}

describe("the routed set", () => {
  it("classifies every call the worker serves: routed to the deployment, or in the list that stays with Cursor", () => {
    const workerAgentPaths = workerRpcPaths();
    expect(workerAgentPaths).toEqual(expect.arrayContaining([...AGENT_PATHS]));
    const routed = new Set([...AGENT_PATHS, ...CATALOGUE_PATHS]);
    const stays = new Set(STAYS_WITH_CURSOR);
    const unclassified = [...UNARY_ROUTES.keys(), ...workerAgentPaths].filter((path) => !routed.has(path) && !stays.has(path));
    expect(unclassified, "add each to connector/routes.ts: routed, or STAYS_WITH_CURSOR").toEqual([]);
    for (const path of stays) {
      expect(routed.has(path), `${path} is both routed and left with Cursor`).toBe(false);
      expect(isRoutedPath(path), path).toBe(false);
    }
    // Nothing is routed that the deployment does not serve, and nothing listed is stale.
    for (const path of CATALOGUE_PATHS) expect(UNARY_ROUTES.has(path), path).toBe(true);
    for (const path of AGENT_PATHS) expect(workerAgentPaths, path).toContain(path);
    for (const path of STAYS_WITH_CURSOR) expect(UNARY_ROUTES.has(path) || workerAgentPaths.includes(path), path).toBe(true);
    for (const path of routed) expect(isRoutedPath(path), path).toBe(true);
  });

  it("matches the path without its query, and only the Cursor API hosts", () => {
    expect(isRoutedPath("/aiserver.v1.AiService/GetServerConfig?x=1")).toBe(true);
    expect(isRoutedPath("/agent.v1.AgentService/RunSSE")).toBe(true);
    expect(isRoutedPath("/aiserver.v1.BidiService/BidiAppend")).toBe(true);
    // Account calls stay with Cursor.
    expect(isRoutedPath("/aiserver.v1.DashboardService/GetMe")).toBe(false);
    expect(isRoutedPath("/aiserver.v1.AuthService/GetEmail")).toBe(false);
    expect(isRoutedHost("API2.cursor.sh")).toBe(true);
    expect(isRoutedHost("cursor.sh")).toBe(false);
    expect(isRoutedHost("api3.cursor.sh")).toBe(false);
  });
});
