// The token a browser login got (docs/connector.md#logging-in-through-the-browser), kept in the
// connector's config folder as `login.json`, readable by its owner alone (mode 0600, in a 0700
// folder), one entry per deployment origin. Never printed; --logout revokes and deletes it.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface SavedLogin {
  token: string;
  tokenId: string;
  email: string | null;
  savedAt: string;
}

type LoginFile = Record<string, SavedLogin>;

export function loginPath(configDir: string): string {
  return join(configDir, "login.json");
}

/** The deployment a login belongs to: its origin, so a trailing slash or path does not matter. */
function keyOf(deploymentUrl: string): string {
  return new URL(deploymentUrl).origin;
}

function readAll(configDir: string): LoginFile {
  const path = loginPath(configDir);
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as LoginFile) : {};
  } catch {
    throw new Error(`${path} is not valid JSON; delete it and log in again`);
  }
}

function writeAll(configDir: string, logins: LoginFile): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const path = loginPath(configDir);
  const temporary = `${path}.${process.pid}.tmp`;
  // Written whole and renamed, so a crash never leaves half a file; 0600 from its first byte.
  writeFileSync(temporary, `${JSON.stringify(logins, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

export function savedLogin(configDir: string, deploymentUrl: string): SavedLogin | undefined {
  return readAll(configDir)[keyOf(deploymentUrl)];
}

export function saveLogin(configDir: string, deploymentUrl: string, login: SavedLogin): void {
  writeAll(configDir, { ...readAll(configDir), [keyOf(deploymentUrl)]: login });
}

/** Removes the deployment's login; false when there was none. */
export function forgetLogin(configDir: string, deploymentUrl: string): boolean {
  const logins = readAll(configDir);
  const key = keyOf(deploymentUrl);
  if (!(key in logins)) return false;
  delete logins[key];
  writeAll(configDir, logins);
  return true;
}
