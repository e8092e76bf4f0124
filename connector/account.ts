// The connector's account commands (docs/connector.md#logging-in-through-the-browser): --login
// gets a token of the person through the browser and keeps it; --logout revokes the kept token at
// the deployment and deletes it; without either, the token to run with is the variable's or the
// kept one.
import { hostname } from "node:os";
import { browserLogin, LoginError, openInBrowser } from "./browser-login.ts";
import { forgetLogin, loginPath, type SavedLogin, savedLogin, saveLogin } from "./saved-login.ts";

const LOGIN_TIMEOUT_MS = 5 * 60_000;

type Say = (line: string) => void;

/** Signs in through the browser and keeps the token; its email, when the deployment says. */
export async function logIn(deploymentUrl: string, configDir: string, noBrowser: boolean, say: Say): Promise<void> {
  const open = (url: string) => {
    say(
      noBrowser
        ? `open this URL in your browser to sign in:\n  ${url}`
        : `opening your browser to sign in; if it does not open, go to:\n  ${url}`,
    );
    if (!noBrowser) openInBrowser(url);
  };
  const { token, tokenId } = await browserLogin({ deploymentUrl, name: `connector on ${hostname()}`, timeoutMs: LOGIN_TIMEOUT_MS, open });
  const email = await emailOf(deploymentUrl, token);
  const previous = savedLogin(configDir, deploymentUrl);
  saveLogin(configDir, deploymentUrl, { token, tokenId, email, savedAt: new Date().toISOString() });
  // The login this one replaces is not left live and forgotten.
  if (previous)
    await revoke(deploymentUrl, previous).catch(() =>
      say(`could not revoke the previous token ${previous.tokenId}; revoke it in the dashboard`),
    );
  say(`signed in${email ? ` as ${email}` : ""}; the token is kept in ${loginPath(configDir)}`);
}

/** Revokes the kept token and deletes it. A token the deployment no longer knows is deleted all the same. */
export async function logOut(deploymentUrl: string, configDir: string, say: Say): Promise<void> {
  const login = savedLogin(configDir, deploymentUrl);
  if (!login) {
    say(`no login is kept for ${new URL(deploymentUrl).origin} in ${configDir}; nothing to do`);
    return;
  }
  await revoke(deploymentUrl, login);
  forgetLogin(configDir, deploymentUrl);
  say(`logged out: the token is revoked and deleted from ${loginPath(configDir)}`);
}

/** Revokes a kept token at the deployment; one it no longer takes (401: revoked, expired, its user removed) opens nothing already. */
async function revoke(deploymentUrl: string, login: SavedLogin): Promise<void> {
  const res = await fetch(new URL(`/api/v1/tokens/${encodeURIComponent(login.tokenId)}`, deploymentUrl), {
    method: "DELETE",
    headers: { authorization: `Bearer ${login.token}` },
    signal: AbortSignal.timeout(30_000),
  }).catch((error: unknown) => {
    throw new LoginError(`could not reach ${deploymentUrl} to revoke the token (it is kept): ${(error as Error).message}`);
  });
  if (res.status !== 204 && res.status !== 401) {
    throw new LoginError(`the deployment did not revoke the token (HTTP ${res.status}); it is kept, try again`);
  }
}

async function emailOf(deploymentUrl: string, token: string): Promise<string | null> {
  try {
    const res = await fetch(new URL("/api/v1/me", deploymentUrl), {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json()) as { user?: { email?: string } | null };
    return body.user?.email ?? null;
  } catch {
    return null;
  }
}

export { LoginError };
