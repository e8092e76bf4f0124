#!/usr/bin/env node
// `npm run connect -- --url URL --login` or `… --token-env NAME` (or the package bin
// `byok-connect`): brings the Cursor desktop app to a byok-edge deployment
// through a local HTTPS proxy with its own CA (docs/connector.md). Needs Node 22
// (the project's; `npm run` puts it first on PATH). Exit 2: bad command line or
// no token; 1: the login, the CA folder or the port failed.
import { X509Certificate } from "node:crypto";
import { LoginError, logIn, logOut } from "./account.ts";
import { CaError, defaultConfigDir, loadOrCreateCa } from "./ca.ts";
import { loginPath, savedLogin } from "./saved-login.ts";
import { parseConnectArgs, USAGE } from "./options.ts";
import { startConnector } from "./proxy.ts";
import { cliText, setupText } from "./setup-text.ts";

const say = (line: string) => process.stderr.write(`byok-connect: ${line}\n`);

const parsed = parseConnectArgs(process.argv.slice(2), process.env);
if (parsed.kind === "help") {
  process.stdout.write(USAGE);
  process.exit(0);
}
if (parsed.kind === "error") {
  process.stderr.write(`byok-connect: ${parsed.message}\n\n${USAGE}`);
  process.exit(2);
}
const { options } = parsed;
for (const warning of options.warnings) say(`warning: ${warning}`);
const configDir = options.configDir ?? defaultConfigDir();

try {
  if (options.account === "logout") {
    await logOut(options.deploymentUrl, configDir, say);
    process.exit(0);
  }
  if (options.account === "login") await logIn(options.deploymentUrl, configDir, options.noBrowser, say);
} catch (error) {
  say(error instanceof LoginError ? error.message : `the login failed: ${(error as Error).message}`);
  process.exit(1);
}

// The token: the named variable's, else the kept login's (never one from the command line).
const kept = options.tokenEnv === undefined ? savedLogin(configDir, options.deploymentUrl) : undefined;
const token = options.tokenEnv === undefined ? kept?.token : options.token;
const tokenSource = options.tokenEnv === undefined ? loginPath(configDir) : `$${options.tokenEnv}`;
const missing =
  options.tokenEnv === undefined
    ? `no token: log in with --login (or name a variable holding your token with --token-env)`
    : `${options.tokenEnv} is not set or empty: export your byok-edge token in it (the token is never taken from the command line)`;

if (options.printToken) {
  if (token === undefined) {
    say(missing);
    process.exit(2);
  }
  process.stdout.write(`${token}\n`);
  process.exit(0);
}
if (options.printCli) {
  if (token === undefined) say(`warning: ${missing}`);
  const configFlag = options.configDir ? ` --config-dir ${options.configDir}` : "";
  const key = options.tokenEnv
    ? `$${options.tokenEnv}`
    : `$(npm run --silent connect -- --url ${options.deploymentUrl}${configFlag} --print-token)`;
  process.stdout.write(cliText(options.deploymentUrl, key));
  process.exit(0);
}
if (token === undefined) {
  say(missing);
  process.exit(2);
}

let ca: ReturnType<typeof loadOrCreateCa>;
try {
  ca = loadOrCreateCa(configDir);
} catch (error) {
  say(error instanceof CaError ? error.message : `could not set up the CA in ${configDir}: ${(error as Error).message}`);
  process.exit(1);
}
if (ca.created) say(`created a new CA in ${configDir} (trust it once, see below)`);

let connector: Awaited<ReturnType<typeof startConnector>>;
try {
  connector = await startConnector({
    deploymentUrl: options.deploymentUrl,
    token,
    ca,
    host: options.host,
    port: options.port,
    log: say,
  });
} catch (error) {
  say(`could not listen on ${options.host}:${options.port}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  process.exit(1);
}
let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void connector.close().finally(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
const sha1 = new X509Certificate(ca.certPem).fingerprint.replace(/:/g, "");
process.stdout.write(
  setupText({
    certPath: ca.certPath,
    sha1,
    host: options.host,
    port: connector.port,
    deploymentUrl: options.deploymentUrl,
    tokenSource,
  }),
);
