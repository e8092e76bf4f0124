// Single sign-on end to end (docs/hosting.md#single-sign-on), against the same `wrangler dev` as
// the other checks with a real OIDC provider beside it (oidc-provider, test/support/oidc-idp.ts):
//  1. in headless Chromium, a person of the team's email domain opens the dashboard, signs in
//     with the provider (nobody sent them anything), issues a Cursor token in one click on the
//     Tokens page, and a Cursor turn runs with it on the team's model;
//  2. the connector's `--login` opens the deployment's sign-in (here: prints it, and Chromium
//     follows it), receives a new token on its loopback redirect, keeps it in its config folder
//     (mode 0600) and runs with it; `--print-cli` and `--print-token` use it; `--logout` revokes
//     it and deletes it.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { toHex } from "../src/core/bytes.ts";
import { deferred, withTimeout } from "../test/support/deferred.ts";
import { callApi as call } from "./support/admin-api.ts";
import { launchBrowser } from "./support/browser.ts";
import { PROJECT_ROOT } from "./support/wrangler-dev.ts";

const UI_TIMEOUT_MS = 15_000;
const CONNECTOR_TIMEOUT_MS = 30_000;
const CREATED = 201;

type Check = (name: string, body: () => Promise<void>) => Promise<void>;

export interface SignOnCheckOptions {
  check: Check;
  baseUrl: string;
  adminToken: string;
  providerBase: string;
  upstreamModel: string;
  /** The name the dashboard's button shows (OIDC_PROVIDER_NAME of the wrangler dev). */
  providerName: string;
  /** Runs one asserted turn as `token` on `model`; resolves with the conversation id. */
  turn: (token: string, model: string, apiKey: string) => Promise<string>;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** A team whose people of a fresh domain sign in, with a team model on the fake provider. */
async function ssoTeam(o: SignOnCheckOptions) {
  const domain = `sso-${toHex(randomBytes(3))}.example`;
  const team = await call<{ id: string }>(o.baseUrl, o.adminToken, "POST", "/teams", { name: `SSO ${domain}` }, CREATED);
  await call(o.baseUrl, o.adminToken, "PATCH", `/teams/${team.id}`, {
    sso_domains: [domain],
    sso_default_role: "member",
    max_token_days: 30,
  });
  const admin = await call<{ id: string }>(
    o.baseUrl,
    o.adminToken,
    "POST",
    `/teams/${team.id}/users`,
    { email: `admin@${domain}`, role: "admin" },
    CREATED,
  );
  const { token } = await call<{ token: string }>(o.baseUrl, o.adminToken, "POST", `/users/${admin.id}/tokens`, { name: "setup" }, CREATED);
  const apiKey = `sk-sso-${toHex(randomBytes(12))}`;
  const credential = await call<{ id: string }>(
    o.baseUrl,
    token,
    "POST",
    "/credentials",
    { name: "team key", provider: "openai-chat", base_url: `${o.providerBase}/v1`, api_key: apiKey, scope: "team" },
    CREATED,
  );
  await call(
    o.baseUrl,
    token,
    "POST",
    "/models",
    { name: "sso-model", credential_id: credential.id, model: o.upstreamModel, scope: "team", context_window: 131_072 },
    CREATED,
  );
  return { domain, apiKey };
}

/** The identity provider's own login page (test/support/oidc-idp.ts): the email, then Sign in. */
async function signInAtIdp(page: Page, email: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign in" }).click();
}

export async function checkSignOn(o: SignOnCheckOptions): Promise<void> {
  let team: Awaited<ReturnType<typeof ssoTeam>> | undefined;
  let browser: Browser | undefined;
  const launched = await launchBrowser();
  browser = launched.browser;
  try {
    await o.check(
      "sign-on: a person of the team's domain signs in with the identity provider, issues a token in one click, runs a turn",
      async () => {
        team = await ssoTeam(o);
        const email = `dev@${team.domain}`;
        const context = await browser!.newContext();
        const page = await context.newPage();
        page.setDefaultTimeout(UI_TIMEOUT_MS);
        await page.goto(`${o.baseUrl}/`);
        await page.getByRole("link", { name: `Sign in with ${o.providerName}` }).click();
        await signInAtIdp(page, email);
        await page.getByText(`${email} · member`).waitFor();
        await page.goto(`${o.baseUrl}/#/tokens`);
        await page.getByRole("button", { name: "New token for Cursor" }).click();
        const token = await page.locator("#new-token-value").inputValue();
        assert(/^byok_/.test(token), "the Tokens page did not show a new byok_ token");
        await o.turn(token, "sso-model", team.apiKey);
        // Signing out ends the session at the deployment, not only in the tab.
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.locator("#sign-in-token").waitFor();
        await page.reload();
        await page.locator("#sign-in-token").waitFor();
        await context.close();
      },
    );

    await o.check("sign-on: the connector logs in through the browser, keeps its token (0600), runs with it, and logs out", async () => {
      team ??= await ssoTeam(o);
      const email = `cli@${team.domain}`;
      const configDir = mkdtempSync(join(tmpdir(), "byok-e2e-login-"));
      try {
        const connector = startConnector(["--url", o.baseUrl, "--login", "--no-browser", "--port", "0", "--config-dir", configDir]);
        try {
          const url = await withTimeout(
            connector.line((l) => l.trim().startsWith(`${o.baseUrl}/auth/connector/start?`)),
            CONNECTOR_TIMEOUT_MS,
            "the sign-in URL",
          );
          const context = await browser!.newContext();
          const page = await context.newPage();
          page.setDefaultTimeout(UI_TIMEOUT_MS);
          await page.goto(url.trim());
          await signInAtIdp(page, email);
          await page.getByRole("button", { name: "Allow" }).click();
          await page.getByText("The connector is signed in").waitFor();
          await context.close();
          await withTimeout(
            connector.line((l) => l.includes(`signed in as ${email}`)),
            CONNECTOR_TIMEOUT_MS,
            "the connector's sign-in",
          );
          // It runs with the token: the proxy's setup text names the kept login as the token's source.
          await withTimeout(
            connector.line((l) => l.includes("login.json")),
            CONNECTOR_TIMEOUT_MS,
            "the proxy's start",
          );
        } finally {
          connector.stop();
        }
        const file = join(configDir, "login.json");
        assert((statSync(file).mode & 0o777) === 0o600, `login.json has mode ${(statSync(file).mode & 0o777).toString(8)}, not 600`);
        const token = (await runConnector(["--url", o.baseUrl, "--config-dir", configDir, "--print-token"])).stdout.trim();
        assert(readFileSync(file, "utf8").includes(token), "--print-token did not print the kept token");
        const me = await call<{ user: { email: string } }>(o.baseUrl, token, "GET", "/me");
        assert(me.user.email === email, `the kept token is ${me.user.email}'s, not ${email}'s`);
        const cli = await runConnector(["--url", o.baseUrl, "--config-dir", configDir, "--print-cli"]);
        assert(cli.stdout.includes("--print-token"), `--print-cli did not use the kept login:\n${cli.stdout}`);
        const out = await runConnector(["--url", o.baseUrl, "--config-dir", configDir, "--logout"]);
        assert(out.code === 0, `--logout exited ${out.code}: ${out.stderr}`);
        const revoked = await fetch(`${o.baseUrl}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
        assert(revoked.status === 401, `the token still answers ${revoked.status} after --logout`);
        assert(!readFileSync(file, "utf8").includes(token), "--logout left the token in login.json");
      } finally {
        rmSync(configDir, { recursive: true, force: true });
      }
    });
  } finally {
    await launched.close();
  }
}

const MAIN = join(PROJECT_ROOT, "connector/main.ts");

/** The connector as a person runs it, its stderr and stdout read line by line. */
function startConnector(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters = new Set<{ test: (l: string) => boolean; found: ReturnType<typeof deferred<string>> }>();
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      lines.push(line);
      for (const w of waiters) {
        if (!w.test(line)) continue;
        waiters.delete(w);
        w.found.resolve(line);
      }
    }
  };
  child.stdout?.on("data", take);
  child.stderr?.on("data", take);
  child.once("exit", (code) => {
    for (const w of waiters) w.found.reject(new Error(`the connector exited (${code}) first:\n${lines.join("\n")}`));
  });
  return {
    line(test: (l: string) => boolean): Promise<string> {
      const seen = lines.find(test);
      if (seen !== undefined) return Promise.resolve(seen);
      const found = deferred<string>();
      waiters.add({ test, found });
      return found.promise;
    },
    stop: () => child.kill("SIGTERM"),
  };
}

async function runConnector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const code = await withTimeout(
    new Promise<number | null>((res) => child.once("exit", res)),
    CONNECTOR_TIMEOUT_MS,
    `byok-connect ${args.join(" ")}`,
  ).finally(() => child.kill());
  return { code, stdout, stderr };
}
