// The generated protobuf code (src/proto/gen) declares TypeScript enums, which
// Node's default type stripping rejects. An entry script calls this first: under
// plain stripping it re-runs itself with --experimental-transform-types in a child
// (same process group, so Ctrl-C reaches both) and exits with the child's status.
import { spawn } from "node:child_process";

const FLAGS = ["--experimental-transform-types", "--disable-warning=ExperimentalWarning"];

/** True when the caller may go on (types are transformed); otherwise never returns. */
export async function ensureTransformTypes(entry: string): Promise<true> {
  if ((process.features as { typescript?: string }).typescript === "transform") return true;
  const child = spawn(process.execPath, [...FLAGS, entry, ...process.argv.slice(2)], { stdio: "inherit" });
  // The child installs its own cleanup; the parent only relays and waits.
  process.on("SIGINT", () => {}); // the terminal's SIGINT reaches the child directly
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  const code = await new Promise<number>((resolve) => {
    child.once("error", () => resolve(1));
    child.once("exit", (status, signal) => resolve(status ?? (signal ? 1 : 0)));
  });
  process.exit(code);
}
