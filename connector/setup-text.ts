// What the connector prints for people: how to trust (and untrust) its CA on each
// OS, the Cursor settings that send the app through it, and for `--print-cli` what
// the `agent` CLI needs (docs/connector.md). Never includes the token, only the
// name of the variable that holds it.

export interface SetupFacts {
  certPath: string;
  /** The CA certificate's SHA-1 fingerprint, hex without colons: how macOS and Windows name it for removal. */
  sha1: string;
  host: string;
  port: number;
  deploymentUrl: string;
  /** Where the token came from, for the first line: "$NAME" or the saved login's file. */
  tokenSource: string;
}

/** The settings.json entries for Cursor (docs/connector.md#cursor-settings). */
function cursorSettings(proxyUrl: string): Record<string, unknown> {
  return {
    "http.proxy": proxyUrl,
    "http.proxySupport": "on",
    "cursor.general.disableHttp2": true,
    "http.experimental.systemCertificatesV2": true,
  };
}

function proxyUrl(facts: SetupFacts): string {
  const host = facts.host.includes(":") ? `[${facts.host}]` : facts.host;
  return `http://${host}:${facts.port}`;
}

/** Quoted for a POSIX shell. */
const sh = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`;

/**
 * The NSS database Chromium (so the Cursor app, an Electron app) trusts on Linux; certutil is
 * libnss3-tools / nss-tools. In double quotes: $HOME expands, and a home with a space stays one word.
 */
const NSSDB = '"sql:$HOME/.pki/nssdb"';
const NSSDB_DIR = '"$HOME/.pki/nssdb"';
/** Fixed paths, quoted all the same, so every path printed can be pasted as it is. */
const DEBIAN_ANCHOR = sh("/usr/local/share/ca-certificates/byok-edge-connector.crt");
const MACOS_KEYCHAIN = sh("/Library/Keychains/System.keychain");
const NSS_NAME = "byok-edge-connector";

function trustText(certPath: string, sha1: string): string {
  const p = sh(certPath);
  return `Trust the connector's CA once (it can only vouch for the Cursor API hosts: name-constrained):
  Linux, both: the Cursor app (Chromium, which reads the NSS database; certutil is in libnss3-tools,
  Fedora nss-tools; no ~/.pki/nssdb yet? first: mkdir -p ${NSSDB_DIR} && certutil -d ${NSSDB} -N --empty-password)
    the app:       certutil -d ${NSSDB} -A -t "C,," -n ${NSS_NAME} -i ${p}
  and the system store, for the app's Node-side requests:
    Debian/Ubuntu: sudo cp ${p} ${DEBIAN_ANCHOR} && sudo update-ca-certificates
    Fedora/RHEL:   sudo trust anchor --store ${p}
  macOS:           sudo security add-trusted-cert -d -r trustRoot -k ${MACOS_KEYCHAIN} ${p}
  Windows:         certutil -addstore -user Root "${certPath}"

To undo:
  Linux:
    the app:       certutil -d ${NSSDB} -D -n ${NSS_NAME}
    Debian/Ubuntu: sudo rm ${DEBIAN_ANCHOR} && sudo update-ca-certificates --fresh
    Fedora/RHEL:   sudo trust anchor --remove ${p}
  macOS:           sudo security delete-certificate -Z ${sha1} -t ${MACOS_KEYCHAIN}
  Windows:         certutil -delstore -user Root ${sha1}
  and remove the Cursor settings below, then delete the folder holding ${p}.
`;
}

export function setupText(facts: SetupFacts): string {
  const settings = JSON.stringify(cursorSettings(proxyUrl(facts)), null, 2)
    .replace(/^[{}]$/gm, "")
    .trim();
  return `byok-connect: ${proxyUrl(facts)} → ${facts.deploymentUrl} (token from ${facts.tokenSource})
CA certificate: ${facts.certPath}

${trustText(facts.certPath, facts.sha1)}
Cursor: add to settings.json (Command Palette → "Preferences: Open User Settings (JSON)"), then restart Cursor:
  ${settings.replace(/\n\s*/g, "\n  ")}

Keep this running while Cursor is open; Ctrl-C stops it.
`;
}

/** `--print-cli`: the same deployment for the `agent` CLI, which needs no proxy or CA. */
/** `key`: the shell text that gives the token, "$NAME" or the command that prints a saved login's token. */
export function cliText(deploymentUrl: string, key: string): string {
  const url = deploymentUrl.replace(/\/+$/, "");
  return `The agent CLI talks to the deployment directly (no proxy, no CA):

  CURSOR_API_ENDPOINT=${url} CURSOR_API_KEY="${key}" agent

or with flags:  agent --endpoint ${url} --api-key "${key}"
(the token is your byok-edge token: BYOK_TOKEN on a single-user deployment, your own byok_… token on a team one)
`;
}
