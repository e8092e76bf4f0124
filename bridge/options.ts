// The bridge's command line: `--upstream URL [--listen 127.0.0.1:PORT]
// [--token-env NAME] [--upstream-protocol connect|grpc-web|grpc]`. The token is
// read from the environment (BYOK_TOKEN unless --token-env names another
// variable), never from the command line, so it stays out of `ps` and shell history.
import { parseArgs } from "node:util";

/** How the bridge speaks to the upstream; byok-edge serves the first two (Workers cannot send trailers). */
export type UpstreamProtocol = "connect" | "grpc-web" | "grpc";

export interface BridgeOptions {
  upstreamUrl: string;
  upstreamProtocol: UpstreamProtocol;
  /** The bearer token for the upstream; undefined when the variable is unset (a reference host needs none). */
  token: string | undefined;
  tokenEnv: string;
  host: string;
  /** 0: any free port. */
  port: number;
  /** Log one line per forwarded call (its method; never a payload or the token). */
  verbose: boolean;
}

export type ParsedOptions = { kind: "run"; options: BridgeOptions } | { kind: "help" } | { kind: "error"; message: string };

const DEFAULT_TOKEN_ENV = "BYOK_TOKEN";
const DEFAULT_LISTEN = "127.0.0.1:0";
const PROTOCOLS: readonly UpstreamProtocol[] = ["connect", "grpc-web", "grpc"];

export const USAGE = `usage: npm run grpc-bridge -- --upstream URL [--listen HOST:PORT] [--token-env NAME]
                              [--upstream-protocol connect|grpc-web|grpc] [--verbose]

Serves codex.code_mode.v1.CodeModeHost as native gRPC (h2c) for clients such as
\`codex app-server --code-mode-host URL\`, and forwards every call to the upstream
(byok-edge) with "Authorization: Bearer <token>".

  --upstream URL              byok-edge's base URL, e.g. https://byok.example.com
  --listen HOST:PORT          where to listen (default ${DEFAULT_LISTEN}: a free port on loopback)
  --token-env NAME            the environment variable holding the token (default ${DEFAULT_TOKEN_ENV})
  --upstream-protocol NAME    connect (default; binary, HTTP/1.1), grpc-web (HTTP/1.1), or grpc (HTTP/2)
  --verbose                   log each forwarded call's method on stderr
`;

export function parseBridgeArgs(argv: string[], env: NodeJS.ProcessEnv): ParsedOptions {
  let values: { upstream?: string; listen?: string; "token-env"?: string; "upstream-protocol"?: string; verbose?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        upstream: { type: "string" },
        listen: { type: "string" },
        "token-env": { type: "string" },
        "upstream-protocol": { type: "string" },
        verbose: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { kind: "error", message: (error as Error).message };
  }
  if (values.help) return { kind: "help" };
  if (!values.upstream) return { kind: "error", message: "--upstream URL is required" };
  const upstreamUrl = parseUpstream(values.upstream);
  if (upstreamUrl === undefined) return { kind: "error", message: `--upstream must be an http(s) URL, got ${values.upstream}` };
  const protocol = values["upstream-protocol"] ?? "connect";
  if (!isProtocol(protocol)) return { kind: "error", message: `--upstream-protocol must be one of ${PROTOCOLS.join(", ")}` };
  const listen = parseListen(values.listen ?? DEFAULT_LISTEN);
  if (listen === undefined) return { kind: "error", message: `--listen must be HOST:PORT, got ${values.listen}` };
  const tokenEnv = values["token-env"] ?? DEFAULT_TOKEN_ENV;
  const token = env[tokenEnv] || undefined;
  return {
    kind: "run",
    options: { upstreamUrl, upstreamProtocol: protocol, token, tokenEnv, ...listen, verbose: values.verbose ?? false },
  };
}

function isProtocol(value: string): value is UpstreamProtocol {
  return (PROTOCOLS as readonly string[]).includes(value);
}

function parseUpstream(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    return url.href.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

function parseListen(value: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port > 65_535) return undefined;
  return { host: match[1] ?? match[2]!, port };
}
