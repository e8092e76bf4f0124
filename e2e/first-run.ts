// A new user's first run (README.md#set-up-and-run-two-commands), without editing a file:
// `npm run dev` in a copy of the project with no .dev.vars writes one (mode 0600) and prints
// the token; in Chromium the user signs in with it, adds a local OpenAI-compatible server
// (Ollama's preset, pointed at the fake provider on loopback; no key) on the Credentials page, a model on
// it on the Models page, tests the model, and runs a Cursor turn on it with the same token.
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "./support/browser.ts";
import { makeTempDir, onCleanup, removeTempDir, startFirstRunDev, type WranglerDev } from "./support/wrangler-dev.ts";

const UI_TIMEOUT_MS = 10_000;
const CALL_TIMEOUT_MS = 15_000;

type Check = (name: string, body: () => Promise<void>) => Promise<void>;

export interface FirstRunCheckOptions {
  check: Check;
  providerBase: string;
  upstreamModel: string;
  /** Runs one asserted turn (e2e/main.ts checkTurn) against `baseUrl` as `token` on `model`. */
  turn: (baseUrl: string, token: string, model: string, apiKey: string | undefined) => Promise<string>;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** The fake provider answers the model test from this scenario, which rides on the credential's header. */
async function putTestScenario(providerBase: string, id: string): Promise<void> {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: Record<string, number>) => ({
    data: JSON.stringify({
      id: "chatcmpl-first-run",
      object: "chat.completion.chunk",
      model: "m",
      choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
      ...(usage && { usage }),
    }),
  });
  const steps = [
    chunk({ role: "assistant", content: "OK" }),
    chunk({}, "stop"),
    chunk({}, null, { prompt_tokens: 3, completion_tokens: 1 }),
    { data: "[DONE]" },
  ];
  const res = await fetch(`${providerBase}/__scenarios/${id}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ responses: [{ steps }] }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`fake provider PUT ${id} → ${res.status}`);
}

export async function checkFirstRun(opts: FirstRunCheckOptions): Promise<void> {
  const { check, providerBase, upstreamModel } = opts;
  const workDir = makeTempDir("byok-first-run");
  onCleanup(() => removeTempDir(workDir));
  let dev: (WranglerDev & { project: string }) | undefined;
  let browser: Browser | undefined;
  let close: (() => Promise<void>) | undefined;
  let page: Page | undefined;
  let token: string | undefined;
  const modelName = "local-first-run";
  const scenario = `first-run-${randomUUID()}`;
  try {
    await check("first run: npm run dev with no .dev.vars writes one (0600) and prints the token to sign in with", async () => {
      dev = await startFirstRunDev(workDir);
      const path = join(dev.project, ".dev.vars");
      const mode = statSync(path).mode & 0o777;
      assert(mode === 0o600, `.dev.vars has mode ${mode.toString(8)}`);
      const vars = parseEnv(await readFile(path, "utf8"));
      token = vars.BYOK_TOKEN;
      assert(token && vars.KEY_ENCRYPTION_KEY, "the written .dev.vars lacks BYOK_TOKEN or KEY_ENCRYPTION_KEY");
      const log = dev.log();
      assert(log.includes(`Token:      ${token}`), "the first run did not print the token it wrote");
      assert(log.includes(`Dashboard:  ${dev.baseUrl}/`), "the first run did not print the dashboard's URL");
      assert(log.includes("npm run connect"), "the first run did not print how to point Cursor at it");
    });

    await check(
      "first run: signed in with the printed token, a local server is added as a credential and a model on it tested",
      async () => {
        assert(dev && token, "the first run did not start");
        await putTestScenario(providerBase, scenario);
        ({ browser, close } = await launchBrowser());
        const context = await browser.newContext();
        context.setDefaultTimeout(UI_TIMEOUT_MS);
        page = await context.newPage();
        await page.goto(`${dev.baseUrl}/`);
        await page.getByLabel("Token", { exact: true }).fill(token);
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("heading", { level: 1, name: "Overview", exact: true }).waitFor();
        const nav = page.getByRole("navigation", { name: "Main" });
        const links = await nav.getByRole("link").allTextContents();
        assert(
          JSON.stringify(links) === JSON.stringify(["Overview", "Models", "Credentials", "Usage", "Runs", "Audit"]),
          `the single user's nav: ${JSON.stringify(links)}`,
        );

        await nav.getByRole("link", { name: "Credentials", exact: true }).click();
        await page.getByRole("button", { name: "Add a credential" }).click();
        const credForm = page.locator("form", { has: page.getByRole("button", { name: "Add credential" }) });
        // Ollama's preset, on the port the stand-in listens on; a local server needs no key.
        await credForm.getByLabel("Provider preset", { exact: true }).selectOption({ label: "Ollama (on this machine)" });
        await credForm.getByLabel("Base URL", { exact: true }).fill(`${providerBase}/v1`);
        await credForm.getByRole("button", { name: "Add credential" }).click();
        await page
          .locator("main")
          .getByRole("row", { name: /Ollama/ })
          .waitFor();

        await nav.getByRole("link", { name: "Models", exact: true }).click();
        await page.getByRole("button", { name: "Add a model" }).click();
        const modelForm = page.locator("form", { has: page.getByRole("button", { name: "Add model" }) });
        await modelForm.getByLabel("Name", { exact: true }).fill(modelName);
        await modelForm.getByLabel("Upstream model", { exact: true }).fill(upstreamModel);
        await modelForm.getByText("Advanced settings").click();
        await modelForm.getByRole("button", { name: "Add header" }).click();
        await modelForm.getByLabel("Header 1 name", { exact: true }).fill("x-fake-scenario");
        await modelForm.getByLabel("Header 1 value", { exact: true }).fill(scenario);
        await modelForm.getByRole("button", { name: "Add model" }).click();
        await page
          .locator("main")
          .getByRole("row", { name: new RegExp(modelName) })
          .waitFor();
        await page.getByRole("button", { name: `Test ${modelName}`, exact: true }).click();
        await page.getByRole("status", { name: "Model test" }).getByText(`${modelName} answered`).waitFor();
        // The test's scenario header is taken off again, so the turn below finds its own by its prompt.
        await page.getByRole("button", { name: `Edit ${modelName}`, exact: true }).click();
        const editForm = page.locator("form", { has: page.getByRole("button", { name: "Save model" }) });
        await editForm.getByText("Advanced settings").click();
        await editForm.getByRole("button", { name: "Remove header 1" }).click();
        await editForm.getByRole("button", { name: "Save model" }).click();
        await page
          .getByRole("status")
          .filter({ hasText: `${modelName} saved.` })
          .waitFor();
      },
    );

    await check("first run: a Cursor turn runs on the model added in the dashboard, with the printed token", async () => {
      assert(dev && token, "the first run did not start");
      await opts.turn(dev.baseUrl, token, modelName, undefined);
    });
  } finally {
    await page
      ?.context()
      .close()
      .catch(() => {});
    await close?.().catch(() => {});
    await dev?.stop();
  }
}
