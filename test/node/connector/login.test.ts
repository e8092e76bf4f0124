// The connector's browser login (connector/browser-login.ts, saved-login.ts, options.ts): the
// loopback redirect is checked for this login's state, used once, bounded by its timeout; the
// code is traded with the PKCE verifier of the challenge it sent; the token is kept 0600. A real
// HTTP server on 127.0.0.1 stands in for the deployment's /auth/connector routes (the real ones
// are tested in test/workers/hosting/sign-on.test.ts and, end to end, in e2e/sign-on.ts).
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { browserLogin } from "../../../connector/browser-login.ts";
import { parseConnectArgs } from "../../../connector/options.ts";
import { forgetLogin, loginPath, savedLogin, saveLogin } from "../../../connector/saved-login.ts";
import { readBody } from "../../support/node-http.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A deployment that approves every start at once and trades a code for a token when the verifier matches. */
async function standInDeployment() {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      if (url.pathname === "/auth/connector/token") {
        const body = JSON.parse(await readBody(req)) as { code: string; code_verifier: string; redirect_uri: string };
        const grant = codes.get(body.code);
        codes.delete(body.code);
        const ok =
          grant &&
          grant.redirectUri === body.redirect_uri &&
          createHash("sha256").update(body.code_verifier).digest("base64url") === grant.challenge;
        res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
        res.end(
          JSON.stringify(
            ok ? { token: "byok_from-the-login", token_id: "tok_1" } : { error: { code: "unauthenticated", message: "bad code" } },
          ),
        );
        return;
      }
      res.writeHead(404).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** What a browser does with the start URL once the person allowed it: the loopback redirect with a code. */
    approve(startUrl: string, state?: string): Promise<Response> {
      const start = new URL(startUrl);
      const redirectUri = start.searchParams.get("redirect_uri")!;
      const code = `code-${codes.size}`;
      codes.set(code, { challenge: start.searchParams.get("code_challenge")!, redirectUri });
      const back = new URL(redirectUri);
      back.search = new URLSearchParams({ code, state: state ?? start.searchParams.get("state")! }).toString();
      return fetch(back);
    },
  };
}

describe("the connector's browser login", () => {
  it("gets the token for the code its loopback redirect received, the verifier never leaving it", async () => {
    const deployment = await standInDeployment();
    let started = "";
    const login = browserLogin({ deploymentUrl: deployment.url, name: "laptop", timeoutMs: 10_000, open: (u) => (started = u) });
    await expect.poll(() => started).not.toBe("");
    const start = new URL(started);
    expect(start.pathname).toBe("/auth/connector/start");
    expect(start.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(start.searchParams.get("code_challenge_method")).toBe("S256");
    expect(started).not.toContain("verifier");
    const page = await deployment.approve(started);
    expect(await page.text()).toContain("The connector is signed in");
    await expect(login).resolves.toEqual({ token: "byok_from-the-login", tokenId: "tok_1" });
    // One use: the loopback server is gone after its first redirect.
    await expect(deployment.approve(started)).rejects.toThrow();
  });

  it("refuses a redirect that carries another login's state", async () => {
    const deployment = await standInDeployment();
    let started = "";
    const login = browserLogin({ deploymentUrl: deployment.url, name: "laptop", timeoutMs: 10_000, open: (u) => (started = u) });
    const refused = expect(login).rejects.toThrow("state that is not this login's");
    await expect.poll(() => started).not.toBe("");
    expect((await deployment.approve(started, "a-state-of-someone-else")).status).toBe(400);
    await refused;
  });

  it("gives up when nobody finishes the sign-in in time", async () => {
    const deployment = await standInDeployment();
    await expect(browserLogin({ deploymentUrl: deployment.url, name: "laptop", timeoutMs: 200, open: () => {} })).rejects.toThrow(
      "nobody finished the sign-in",
    );
  });
});

describe("the kept login", () => {
  it("is readable by its owner alone, per deployment, and gone after forgetLogin", () => {
    const dir = mkdtempSync(join(tmpdir(), "byok-login-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const configDir = join(dir, "connector");
    saveLogin(configDir, "https://byok.example.com/", { token: "byok_a", tokenId: "tok_a", email: "a@acme.com", savedAt: "now" });
    saveLogin(configDir, "https://other.example.com", { token: "byok_b", tokenId: "tok_b", email: null, savedAt: "now" });
    expect(statSync(loginPath(configDir)).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(savedLogin(configDir, "https://byok.example.com")?.token).toBe("byok_a");
    expect(forgetLogin(configDir, "https://byok.example.com")).toBe(true);
    expect(savedLogin(configDir, "https://byok.example.com")).toBeUndefined();
    expect(readFileSync(loginPath(configDir), "utf8")).not.toContain("byok_a");
    expect(savedLogin(configDir, "https://other.example.com")?.token).toBe("byok_b");
  });

  it("is not mixed with a token of the person's own: --login and --token-env exclude each other", () => {
    expect(parseConnectArgs(["--url", "https://b.example", "--login", "--token-env", "T"], { T: "x" })).toMatchObject({ kind: "error" });
    expect(parseConnectArgs(["--url", "https://b.example", "--login", "--logout"], {})).toMatchObject({ kind: "error" });
    expect(parseConnectArgs(["--url", "https://b.example", "--login"], {})).toMatchObject({ kind: "run", options: { account: "login" } });
  });
});
