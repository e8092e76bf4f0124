// CI's script (.ci/run) and its browser: a CHROMIUM_PATH that names no browser
// stops it at once with a clear message, before anything is installed or run
// (the browser check would launch that path whatever was installed). A copy of
// the script runs in a scratch folder with stand-ins for npm, apt-get and sudo
// on PATH, which only record that they were called.
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withTimeout } from "../../support/deferred.ts";

const SCRIPT = resolve(import.meta.dirname, "../../../.ci/run");
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "byok-ci-run-"));
  mkdirSync(join(dir, ".ci"));
  copyFileSync(SCRIPT, join(dir, ".ci/run"));
  mkdirSync(join(dir, "bin"));
  for (const tool of ["npm", "apt-get", "sudo"]) {
    writeFileSync(join(dir, "bin", tool), `#!/bin/sh\necho "${tool} $*" >> "${join(dir, "calls")}"\n`);
    chmodSync(join(dir, "bin", tool), 0o755);
  }
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function ciRun(chromiumPath: string) {
  const env = { PATH: `${join(dir, "bin")}:/usr/bin:/bin`, CHROMIUM_PATH: chromiumPath };
  const child = spawn("bash", [join(dir, ".ci/run")], { env: env as unknown as NodeJS.ProcessEnv, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const code = await withTimeout(
    new Promise<number | null>((res) => child.once("exit", (c: number | null) => res(c))),
    10_000,
    ".ci/run",
  ).finally(() => child.kill());
  const calls = existsSync(join(dir, "calls")) ? readFileSync(join(dir, "calls"), "utf8").trim().split("\n") : [];
  return { code, stderr, calls };
}

describe(".ci/run", () => {
  it("stops before anything runs when CHROMIUM_PATH names a file that does not exist", async () => {
    const missing = join(dir, "no-such-chromium");
    const out = await ciRun(missing);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`CHROMIUM_PATH=${missing} does not exist`);
    expect(out.calls).toEqual([]);
  });

  it("stops when CHROMIUM_PATH is not executable", async () => {
    const plain = join(dir, "chromium.txt");
    writeFileSync(plain, "");
    const out = await ciRun(plain);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`CHROMIUM_PATH=${plain} is not executable`);
    expect(out.calls).toEqual([]);
  });

  it("with a CHROMIUM_PATH that is a program, installs nothing and runs the checks through to e2e", async () => {
    const out = await ciRun("/bin/true");
    expect(out.code).toBe(0);
    expect(out.calls[0]).toBe("npm ci --no-audit --no-fund");
    expect(out.calls.at(-1)).toBe("npm run e2e");
    expect(out.calls.filter((call) => !call.startsWith("npm "))).toEqual([]);
  });
});
