// The connector's command line: `--url URL (--login | --token-env NAME) [--port 8790]
// [--host 127.0.0.1] [--config-dir DIR] [--print-cli]`, and `--logout`. The token comes from a
// browser login kept in the config folder, or from the environment variable NAME, never from
// the command line, so it stays out of `ps` and shell history (docs/connector.md#running-it).
import { isIP } from "node:net";
import { parseArgs } from "node:util";

interface ConnectOptions {
  deploymentUrl: string;
  /** Undefined: the token is the saved login's. */
  tokenEnv: string | undefined;
  /** The variable's value; undefined when it is unset or empty, or no variable was named. */
  token: string | undefined;
  /** What to do first: log in through the browser (then run), or revoke and forget the saved login (then stop). */
  account: "login" | "logout" | undefined;
  /** Print the sign-in URL instead of opening the default browser. */
  noBrowser: boolean;
  /** Print the token (a saved login's or the variable's) and exit: for `agent`'s CURSOR_API_KEY. */
  printToken: boolean;
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

export const USAGE = `usage: npm run connect -- --url URL [--login | --token-env NAME] [--port ${DEFAULT_PORT}] [--host ${DEFAULT_HOST}]
                          [--config-dir DIR] [--print-cli] [--print-token] [--no-browser]
       npm run connect -- --url URL --logout
   (or: byok-connect --url URL …)

A local HTTPS proxy for the Cursor app: the agent and model paths of Cursor's API
go to the byok-edge deployment at URL with your token, everything else to Cursor
unchanged. Prints how to trust its CA and what to put in Cursor's settings.

  --url URL          the deployment, e.g. https://byok.example.com
  --login            sign in through your browser; the new token is kept in the config folder
                     (mode 0600) and used from then on, without --token-env
  --logout           revoke the kept token and delete it
  --token-env NAME   the environment variable holding your byok-edge token (instead of a login)
  --port N           where to listen (default ${DEFAULT_PORT})
  --host ADDR        the address to listen on (default ${DEFAULT_HOST}; keep it on loopback)
  --config-dir DIR   where the CA lives (default: the user's config folder, byok-edge/connector)
  --print-cli        print what the \`agent\` CLI needs for the same deployment, and exit
  --print-token      print the token (the kept login's, or --token-env's), and exit
  --no-browser       print the sign-in URL instead of opening the default browser
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
    "print-token"?: boolean;
    login?: boolean;
    logout?: boolean;
    "no-browser"?: boolean;
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
        "print-token": { type: "boolean" },
        login: { type: "boolean" },
        logout: { type: "boolean" },
        "no-browser": { type: "boolean" },
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
  if (url.username || url.password)
    return { kind: "error", message: "--url must not carry credentials; the token comes from a login or --token-env" };
  const tokenEnv = values["token-env"];
  if (tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
    return { kind: "error", message: `--token-env must be a variable name, not ${JSON.stringify(tokenEnv)}` };
  if (values.login && values.logout) return { kind: "error", message: "--login and --logout cannot be given together" };
  if (tokenEnv !== undefined && (values.login || values.logout)) {
    return {
      kind: "error",
      message: "--token-env names a token of your own; --login and --logout are for the token a browser login keeps",
    };
  }
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
  const token = tokenEnv === undefined ? undefined : env[tokenEnv];
  return {
    kind: "run",
    options: {
      deploymentUrl: values.url,
      tokenEnv,
      token: token ? token : undefined,
      account: values.login ? "login" : values.logout ? "logout" : undefined,
      noBrowser: values["no-browser"] ?? false,
      printToken: values["print-token"] ?? false,
      host,
      port,
      configDir: values["config-dir"],
      printCli: values["print-cli"] ?? false,
      warnings,
    },
  };
}
