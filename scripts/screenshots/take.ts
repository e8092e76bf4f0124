// Takes the dashboard's screenshots (docs/dashboard.md#screenshots): builds the
// dashboard, starts a hermetic `wrangler dev` (e2e harness) with the fake provider,
// seeds it (./seed.ts), then signs in with headless Chromium and captures each page
// at 1280×800 and 390×844, full page, into docs/dashboard/<page>-<laptop|phone>.png.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { startFakeProviderServer } from "../../test/support/fake-provider-server.ts";
import { launchBrowser } from "../../e2e/support/browser.ts";
import {
  installExitHandlers,
  makeTempDir,
  onCleanup,
  PROJECT_ROOT,
  removeTempDir,
  runCleanups,
  startWranglerDev,
} from "../../e2e/support/wrangler-dev.ts";
import { type Seeded, seed } from "./seed.ts";

const OUT = join(PROJECT_ROOT, "docs/dashboard");
const VIEWPORTS = [
  { name: "laptop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;
const STEP_TIMEOUT_MS = 15_000;

async function main(): Promise<void> {
  installExitHandlers();
  execFileSync(join(PROJECT_ROOT, "node_modules/.bin/vite"), ["build", "--config", "dashboard/vite.config.ts"], {
    cwd: PROJECT_ROOT,
    stdio: "inherit",
  });
  const workDir = makeTempDir("byok-screenshots");
  onCleanup(() => removeTempDir(workDir));
  const provider = await startFakeProviderServer();
  onCleanup(() => provider.close());
  const providerBase = `http://127.0.0.1:${provider.port}`;
  const operatorToken = `op-${randomBytes(24).toString("hex")}`;
  const dev = await startWranglerDev({
    workDir,
    migrateD1: true,
    vars: {
      ADMIN_TOKEN: operatorToken,
      KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      BYOK_ALLOW_PRIVATE_UPSTREAMS: "true",
    },
  });
  console.log(`wrangler dev on ${dev.baseUrl}; seeding…`);
  const seeded = await seed({ baseUrl: dev.baseUrl, operatorToken, providerBase, workDir });
  const { browser, close } = await launchBrowser();
  onCleanup(close);
  mkdirSync(OUT, { recursive: true });
  for (const viewport of VIEWPORTS) await shootAll(browser, dev.baseUrl, seeded, operatorToken, viewport);
  console.log(`screenshots in ${OUT}`);
}

async function shootAll(
  browser: Browser,
  baseUrl: string,
  seeded: Seeded,
  operatorToken: string,
  viewport: (typeof VIEWPORTS)[number],
): Promise<void> {
  const context = await browser.newContext({
    viewport: { width: viewport.width, height: viewport.height },
    deviceScaleFactor: 1,
    locale: "en-GB",
    timezoneId: "UTC",
    colorScheme: "light",
    reducedMotion: "reduce",
  });
  context.setDefaultTimeout(STEP_TIMEOUT_MS);
  const page = await context.newPage();
  const shot = async (name: string, mask: string[] = []) => {
    // Clicking in a table scrolls its box sideways; the shot shows each from its start.
    await page.evaluate('for (const box of document.querySelectorAll(".table-wrap")) box.scrollLeft = 0;');
    const png = await page.screenshot({
      path: join(OUT, `${name}-${viewport.name}.png`),
      fullPage: true,
      animations: "disabled",
      mask: mask.map((selector) => page.locator(selector)),
      maskColor: "#9aa0a6",
    });
    // Readable at this width: a full-page shot wider than the viewport means something sticks out sideways.
    const width = png.readUInt32BE(16); // the PNG header's width
    if (width !== viewport.width) throw new Error(`${name} at ${viewport.name} width: the page is ${width} px wide, not ${viewport.width}`);
    console.log(`  ${name}-${viewport.name}.png`);
  };

  await page.goto(`${baseUrl}/`);
  await page.getByLabel("Token").waitFor();
  await shot("sign-in");
  await signIn(page, seeded.adminToken);

  await open(page, "models", "Models");
  await shot("models");
  await open(page, "credentials", "Credentials");
  await shot("credentials");
  await open(page, "tokens", "Tokens");
  await issueToken(page);
  // The just-issued token is a throwaway of a deployment that is gone after this run; masked all the same.
  await shot("tokens", [".secret"]);

  await open(page, "usage", "Usage");
  await page.getByRole("button", { name: "Last 30 days" }).click();
  await page.locator(".chart-plot canvas").first().waitFor();
  await page.getByText("Loading usage…").waitFor({ state: "detached" });
  await page.locator(".chart-plot canvas").nth(4).waitFor(); // every chart of the page drawn
  await shot("usage");

  await open(page, "runs", "Runs");
  await page.getByRole("button", { name: "All recent runs" }).click();
  const details = page.getByRole("button", { name: /^Details \(2\)/ }).first();
  await details.click();
  await page.getByRole("table", { name: "Provider calls" }).waitFor();
  await shot("runs");

  await open(page, "team", "Team");
  await page.getByRole("meter").waitFor();
  await page.getByRole("table", { name: "Users of the team" }).waitFor();
  await shot("team");

  // The operator's Team page: every team, one picked.
  await page.getByRole("button", { name: "Sign out" }).click();
  await signIn(page, operatorToken);
  await open(page, "team", "Team");
  await page.getByRole("button", { name: "Manage Platform" }).click();
  await page.getByRole("table", { name: "Users of the team" }).waitFor();
  await shot("team-operator");
  await context.close();
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel("Token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

async function open(page: Page, route: string, heading: string): Promise<void> {
  await page.goto(`${new URL(page.url()).origin}/#/${route}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await page.waitForLoadState("networkidle");
  // The pages say "Loading…" until their first answer is shown; a shot before that shows nothing.
  await page
    .getByRole("status")
    .filter({ hasText: /^Loading/ })
    .first()
    .waitFor({ state: "detached" });
}

/** Tokens page: issue one, so the shot shows the once-only panel (ui-a's form: a "Name" field, an "Issue token" button). */
async function issueToken(page: Page): Promise<void> {
  const name = page.getByLabel("Name", { exact: true });
  if ((await name.count()) === 0) return;
  await name.fill("Screenshot token");
  await page.getByRole("button", { name: /^Issue/ }).click();
  await page.locator(".secret").waitFor();
}

try {
  await main();
} finally {
  await runCleanups();
}
