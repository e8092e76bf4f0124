// `--login` (docs/connector.md#logging-in-through-the-browser): the loopback flow of OAuth for
// native apps against the deployment's /auth/connector routes. A one-shot HTTP server
// on 127.0.0.1 at a random port receives the browser's redirect; `state` ties it to this login
// and a PKCE verifier, which never leaves this process, to the code; the first redirect ends the
// server, and a login nobody finishes ends after the timeout.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface BrowserLoginOptions {
  deploymentUrl: string;
  /** What the token is called in the person's list of tokens. */
  name: string;
  timeoutMs: number;
  /** Opens the URL for the person: the default browser, or (--no-browser) printing it. */
  open: (url: string) => void;
}

export interface LoginResult {
  token: string;
  tokenId: string;
}

export class LoginError extends Error {}

export async function browserLogin(options: BrowserLoginOptions): Promise<LoginResult> {
  const state = randomBytes(32).toString("base64url");
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const { redirectUri, code } = await receiveCode(options, state, challenge);
  const res = await fetch(new URL("/auth/connector/token", options.deploymentUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ code, code_verifier: verifier, redirect_uri: redirectUri }),
    signal: AbortSignal.timeout(30_000),
  }).catch((error: unknown) => {
    throw new LoginError(`could not reach ${options.deploymentUrl}: ${(error as Error).message}`);
  });
  const body = (await res.json().catch(() => ({}))) as { token?: string; token_id?: string; error?: { message?: string } };
  if (!res.ok || !body.token || !body.token_id) {
    throw new LoginError(`the deployment refused the login (HTTP ${res.status}): ${body.error?.message ?? "no token in its answer"}`);
  }
  return { token: body.token, tokenId: body.token_id };
}

/** Serves one redirect on a random loopback port: the code it carries, when its state is this login's. */
function receiveCode(options: BrowserLoginOptions, state: string, challenge: string): Promise<{ redirectUri: string; code: string }> {
  return new Promise((resolve, reject) => {
    let redirectUri = "";
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", redirectUri);
      if (url.pathname !== "/callback") {
        res.writeHead(404).end();
        return;
      }
      const code = url.searchParams.get("code");
      const ok = url.searchParams.get("state") === state && !!code;
      res.writeHead(ok ? 200 : 400, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(
        ok
          ? "<!doctype html><title>byok-edge</title><p>The connector is signed in. You can close this tab.</p>"
          : "<!doctype html><title>byok-edge</title><p>This sign-in is not the connector's (its state does not match). Start it again.</p>",
      );
      finish(ok ? undefined : new LoginError("the browser came back with a state that is not this login's; start the login again"), code);
    });
    const timer = setTimeout(
      () => finish(new LoginError(`nobody finished the sign-in within ${Math.round(options.timeoutMs / 1000)} s; run --login again`)),
      options.timeoutMs,
    );
    let done = false;
    function finish(error: Error | undefined, code?: string | null) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      server.close();
      server.closeAllConnections();
      if (error || !code) reject(error ?? new LoginError("no code came back"));
      else resolve({ redirectUri, code });
    }
    server.once("error", (error) => finish(new LoginError(`could not listen on 127.0.0.1: ${error.message}`)));
    server.listen(0, "127.0.0.1", () => {
      redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
      const start = new URL("/auth/connector/start", options.deploymentUrl);
      start.search = new URLSearchParams({
        redirect_uri: redirectUri,
        state,
        code_challenge: challenge,
        code_challenge_method: "S256",
        name: options.name,
      }).toString();
      options.open(start.toString());
    });
  });
}

/** The platform's way to open a URL in the default browser; $BROWSER first, as many tools honour it. */
export function openInBrowser(url: string, env: Readonly<Record<string, string | undefined>> = process.env): void {
  const [command, ...args] = env.BROWSER
    ? [env.BROWSER, url]
    : process.platform === "darwin"
      ? ["open", url]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", "", url]
        : ["xdg-open", url];
  const child = spawn(command!, args, { stdio: "ignore", detached: true });
  child.on("error", () => undefined); // the URL is printed too: a missing opener is not fatal
  child.unref();
}
