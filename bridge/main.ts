// The bridge process: parse the command line, start the server, print the URL
// to give Codex, and stop cleanly on SIGINT/SIGTERM. The token is never printed.
import { parseBridgeArgs, USAGE } from "./options.ts";
import { startBridge } from "./server.ts";

const parsed = parseBridgeArgs(process.argv.slice(2), process.env);
if (parsed.kind === "help") {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (parsed.kind === "error") {
  process.stderr.write(`grpc-bridge: ${parsed.message}\n\n${USAGE}`);
  process.exit(2);
}
const { options } = parsed;
if (options.token === undefined) {
  process.stderr.write(`grpc-bridge: warning: ${options.tokenEnv} is not set; calls go upstream without a bearer token\n`);
}
const onCall = options.verbose ? (method: string) => process.stderr.write(`grpc-bridge: call ${method}\n`) : undefined;
const bridge = await startBridge({ ...options, onCall });
let stopping = false;
const stop = () => {
  // A signal to the process group can arrive twice (directly and relayed by the relaunching parent).
  if (stopping) return;
  stopping = true;
  void bridge.close().finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
process.stderr.write(
  `grpc-bridge: forwarding codex.code_mode.v1.CodeModeHost to ${options.upstreamUrl} (${options.upstreamProtocol}); ` +
    `token from ${options.tokenEnv}${options.token === undefined ? " (unset)" : ""}\n`,
);
// The one line on stdout, for people and scripts: the URL to give Codex.
process.stdout.write(`${bridge.url}\n`);
