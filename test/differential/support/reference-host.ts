// Runs the reference `codex-code-mode-host` (docs/code-mode.md#differential-suite)
// on a port of its own choosing: it prints the URL it listens on, so no port
// is guessed. Its own process group, stopped with one signal to the group.
import { type ChildProcess, spawn } from "node:child_process";

const READY_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 3_000;

export interface ReferenceHost {
  baseUrl: string;
  stop(): Promise<void>;
}

export async function startReferenceHost(binary: string): Promise<ReferenceHost> {
  const child = spawn(binary, ["--listen", "grpc://127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // setsid: its own process group
    // Nothing of this process's environment (no keys) reaches the reference host. (The
    // test project's Workers types add the worker's vars to ProcessEnv, hence the cast.)
    env: { PATH: process.env.PATH ?? "", RUST_LOG: "warn" } as unknown as NodeJS.ProcessEnv,
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  let output = "";
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`codex-code-mode-host was not ready within ${READY_TIMEOUT_MS} ms:\n${output}`)),
      READY_TIMEOUT_MS,
    );
    child.stdout?.on("data", (data: Buffer) => {
      output += data.toString();
      // Its stdout is the URL alone, once listening.
      const url = output.match(/^(http:\/\/127\.0\.0\.1:\d+)$/m)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.stderr?.on("data", (data: Buffer) => (output += data.toString()));
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`codex-code-mode-host exited early (code ${code}, signal ${signal}):\n${output}`));
    });
  }).catch(async (error: unknown) => {
    killGroup(child, "SIGKILL");
    await exited;
    throw error;
  });
  return {
    baseUrl,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      killGroup(child, "SIGTERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceful = await Promise.race([
        exited.then(() => true),
        new Promise<false>((r) => (timer = setTimeout(() => r(false), STOP_GRACE_MS))),
      ]);
      clearTimeout(timer);
      if (!graceful) killGroup(child, "SIGKILL");
      await exited;
    },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
