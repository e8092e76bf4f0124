// Runs the gRPC bridge as people do (`npm run grpc-bridge`, i.e. node
// bridge/grpc-bridge.ts) in its own process group, with the token in an
// environment variable, and reads the URL it prints. --verbose makes it log one
// line per forwarded call (the method name only), which the check reads back.
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { withTimeout } from "../../test/support/deferred.ts";

const ENTRY = resolve(import.meta.dirname, "../../bridge/grpc-bridge.ts");
const READY_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 3_000;
const TOKEN_ENV = "BYOK_E2E_BRIDGE_TOKEN";

export interface BridgeProcess {
  url: string;
  /** The methods it forwarded, in order (from its --verbose log). */
  calls(): string[];
  /** Everything it printed (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

export async function startBridgeProcess(
  upstream: string,
  protocol: "connect" | "grpc-web" | "grpc",
  token?: string,
): Promise<BridgeProcess> {
  const args = [ENTRY, "--upstream", upstream, "--upstream-protocol", protocol, "--token-env", TOKEN_ENV, "--verbose"];
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? "", ...(token !== undefined && { [TOKEN_ENV]: token }) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const exited = new Promise<void>((done) => child.once("close", () => done()));
  let output = "";
  const calls: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => {
    output += `${line}\n`;
    const call = /^grpc-bridge: call (\S+)/.exec(line)?.[1];
    if (call) calls.push(call);
  });
  const url = new Promise<string>((done, fail) => {
    createInterface({ input: child.stdout! }).once("line", (line) => {
      output += `${line}\n`;
      done(line.trim());
    });
    child.once("exit", (code) => fail(new Error(`the bridge exited (code ${code}) before printing its URL:\n${output}`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, "SIGTERM");
      const graceful = await withTimeout(exited, STOP_GRACE_MS, "the bridge to exit").then(
        () => true,
        () => false,
      );
      if (!graceful) killGroup(child, "SIGKILL");
    }
    await withTimeout(exited, STOP_GRACE_MS, "the bridge to exit").catch(() => {});
  };
  try {
    return { url: await withTimeout(url, READY_TIMEOUT_MS, "the bridge's URL"), calls: () => [...calls], output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
