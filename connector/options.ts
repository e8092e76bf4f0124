// The connector's command line: `--url URL --token-env NAME [--port 8790]
// [--host 127.0.0.1] [--config-dir DIR] [--print-cli]`. The token comes from the
// environment variable NAME, never from the command line, so it stays out of
// `ps` and shell history (docs/connector.md#running-it).
import { isIP } from "node:net";
import { parseArgs } from "node:util";

interface ConnectOptions {
  deploymentUrl: string;
  tokenEnv: string;
  /** Undefined when the variable is unset or empty. */
  token: string | undefined;
  host: string;
  port: number;
  configDir: string | undefined;
  printCli: boolean;
  /** Things worth saying that do not stop it (plain http off this machine, listening beyond loopback). */
  warnings: string[];
}

export type ParsedConnectArgs = { kind: "run"; options: ConnectOptions } | { kind: "help" } | { kind: "error"; message: string };

const DEFAULT_PORT = 8790;
const DEFAULT_HOST = "127.0.0.1";

export const USAGE = `usage: npm run connect -- --url URL --token-env NAME [--port ${DEFAULT_PORT}] [--host ${DEFAULT_HOST}]
                          [--config-dir DIR] [--print-cli]
   (or: byok-connect --url URL --token-env NAME …)

A local HTTPS proxy for the Cursor app: the agent and model paths of Cursor's API
go to the byok-edge deployment at URL with your token, everything else to Cursor
unchanged. Prints how to trust its CA and what to put in Cursor's settings.

  --url URL          the deployment, e.g. https://byok.example.com
  --token-env NAME   the environment variable holding your byok-edge token
  --port N           where to listen (default ${DEFAULT_PORT})
  --host ADDR        the address to listen on (default ${DEFAULT_HOST}; keep it on loopback)
  --config-dir DIR   where the CA lives (default: the user's config folder, byok-edge/connector)
  --print-cli        print what the \`agent\` CLI needs for the same deployment, and exit
`;

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost")) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  return h === "::1";
}

export function parseConnectArgs(argv: string[], env: Readonly<Record<string, string | undefined>>): ParsedConnectArgs {
  let values: {
    url?: string;
    "token-env"?: string;
    port?: string;
    host?: string;
    "config-dir"?: string;
    "print-cli"?: boolean;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: "string" },
        "token-env": { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        "config-dir": { type: "string" },
        "print-cli": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { kind: "error", message: (error as Error).message };
  }
  if (values.help) return { kind: "help" };
  if (!values.url) return { kind: "error", message: "--url is required (the deployment's base URL)" };
  let url: URL;
  try {
    url = new URL(values.url);
  } catch {
    return { kind: "error", message: `--url is not a URL: ${values.url}` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return { kind: "error", message: `--url must be http:// or https://, not ${url.protocol}` };
  if (url.username || url.password) return { kind: "error", message: "--url must not carry credentials; the token comes from --token-env" };
  const tokenEnv = values["token-env"];
  if (!tokenEnv) return { kind: "error", message: "--token-env is required (the name of the environment variable holding your token)" };
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
    return { kind: "error", message: `--token-env must be a variable name, not ${JSON.stringify(tokenEnv)}` };
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return { kind: "error", message: `--port must be 0..65535, not ${values.port}` };
  const host = values.host ?? DEFAULT_HOST;
  const warnings: string[] = [];
  if (url.protocol === "http:" && !isLoopback(url.hostname)) {
    warnings.push(`--url is plain http to ${url.hostname}: your token and every prompt cross the network unencrypted. Use https.`);
  }
  if (!isLoopback(host)) {
    warnings.push(`--host ${host} is not loopback: anyone who can reach this port can use the deployment as you.`);
  }
  const token = env[tokenEnv];
  return {
    kind: "run",
    options: {
      deploymentUrl: values.url,
      tokenEnv,
      token: token ? token : undefined,
      host,
      port,
      configDir: values["config-dir"],
      printCli: values["print-cli"] ?? false,
      warnings,
    },
  };
}
