// The dashboard in headless Chromium against the same `wrangler dev` as the other
// checks (docs/dashboard.md#accessibility): the operator sets up a team, its admin and the
// admin's token through the API; then, in the browser, the admin signs in by
// keyboard alone, adds a credential and models on the fake provider, tests them
// (figures, then the provider's raw error), sees the API's inline errors, runs a
// turn (through Connect, as Cursor would) and finds it in Runs and Usage, finds the
// credential's entry in Audit and exports it, issues a token (shown once, Copy; the one
// the operator issued marked so) and revokes the one signed in with, which signs out.
// axe-core checks each page: no serious or critical violations. Last, the admin API's docs
// (/api/docs, Swagger UI from the deployment's own files) render under the same CSP.
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import axe from "axe-core";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { lookUpModel } from "../dashboard/src/providers/catalogue.ts";
import { toHex } from "../src/core/bytes.ts";
import { deferred } from "../test/support/deferred.ts";
import type { Step } from "../test/support/fake-provider-types.ts";
// Aliased: the checks below read as calls of the API, `call(baseUrl, token, method, path, body)`.
import { callApi as call } from "./support/admin-api.ts";
import { launchBrowser } from "./support/browser.ts";
import { until } from "./support/until.ts";

/** Every wait in the browser: the dashboard answers in well under a second on a local wrangler dev. */
const UI_TIMEOUT_MS = 10_000;
const CALL_TIMEOUT_MS = 15_000;
const SESSION_ENDED = "Your session has ended: the token is no longer valid. Sign in again.";

type Check = (name: string, body: () => Promise<void>) => Promise<void>;

export interface DashboardCheckOptions {
  check: Check;
  baseUrl: string;
  /** ADMIN_TOKEN of the wrangler dev. */
  adminToken: string;
  providerBase: string;
  upstreamModel: string;
  /** Runs one asserted turn (e2e/main.ts checkTurn) as `token` on `model`; resolves with the conversation id. */
  turn: (token: string, model: string, apiKey: string) => Promise<string>;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

async function providerControl(providerBase: string, path: string, init: RequestInit = {}): Promise<void> {
  const res = await fetch(`${providerBase}/__scenarios/${path}`, { ...init, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`fake provider ${init.method ?? "GET"} ${path} → ${res.status}: ${await res.text()}`);
}

/** A model test's reply: the first text, a gate the check releases (so generating takes measurable time), the rest and usage. */
function gatedChatSteps(model: string): Step[] {
  const id = `chatcmpl-${randomUUID()}`;
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): Step => ({
    data: JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices, ...extra }),
  });
  return [
    chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]),
    chunk([{ index: 0, delta: { content: "Hi" }, finish_reason: null }]),
    { gate: "after-first-token" },
    chunk([{ index: 0, delta: { content: " there" }, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
    chunk([], { usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 } }),
    { data: "[DONE]" },
  ];
}

/** axe-core on the page as it is: fails on serious or critical violations, naming them. */
async function expectAccessible(page: Page, where: string): Promise<void> {
  // evaluate() is not page script, so the dashboard's CSP (no inline script) does not stop it.
  // Page code is passed as text: e2e compiles without the DOM library.
  if (!(await page.evaluate("'axe' in window"))) await page.evaluate(axe.source);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")) })))`)) as {
    id: string;
    impact: string | null;
    help: string;
    nodes: string[];
  }[];
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert(bad.length === 0, `axe on ${where}: ${JSON.stringify(bad, null, 2)}`);
}

const main = (page: Page) => page.locator("main");
const nav = (page: Page) => page.getByRole("navigation", { name: "Main" });

async function goTo(page: Page, name: string): Promise<void> {
  await nav(page).getByRole("link", { name, exact: true }).click();
  await page.getByRole("heading", { level: 1, name, exact: true }).waitFor();
  const current = await nav(page).locator('[aria-current="page"]').textContent();
  assert(current === name, `after following ${name} the current nav link is ${current}`);
}

/** The label (or accessible text) of the focused element. */
async function focusedDescription(page: Page): Promise<string> {
  return (await page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el) return "(nothing)";
    const label = el.id ? document.querySelector('label[for="' + el.id + '"]')?.textContent : null;
    return label ?? el.getAttribute("aria-label") ?? el.textContent ?? el.tagName;
  })()`)) as string;
}

async function expectFieldError(form: Locator, label: string, pattern: RegExp): Promise<void> {
  const field = form.getByLabel(label, { exact: true });
  await field.and(form.locator('[aria-invalid="true"]')).waitFor();
  const describedBy = (await field.getAttribute("aria-describedby")) ?? "";
  const ids = describedBy.split(" ").filter(Boolean);
  const texts = await Promise.all(ids.map((id) => form.page().locator(`[id="${id}"]`).textContent()));
  assert(
    texts.some((t) => t !== null && pattern.test(t)),
    `${label}: expected an error matching ${pattern} tied to the field, got ${JSON.stringify(texts)}`,
  );
}

export async function checkDashboard(opts: DashboardCheckOptions): Promise<void> {
  const { baseUrl, adminToken, providerBase, upstreamModel } = opts;
  // A failing browser step says where the page was and what it showed.
  const check: Check = (name, body) =>
    opts.check(name, async () => {
      try {
        await body();
      } catch (error) {
        const shown = page
          ? await page
              .locator("body")
              .textContent({ timeout: 1_000 })
              .catch(() => "(unreadable)")
          : "(no page)";
        const where = page ? `${page.url()}, focus on ${JSON.stringify(await focusedDescription(page).catch(() => "?"))}` : "";
        throw new Error(
          `${error instanceof Error ? error.message : String(error)}\n--- page (${where}) ---\n${(shown ?? "").slice(0, 2_000)}`,
          {
            cause: error,
          },
        );
      }
    });
  let browser: Browser | undefined;
  let close: (() => Promise<void>) | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];
  const apiKey = `sk-ui-${toHex(randomBytes(10))}`;
  const okScenario = `ui-ok-${randomUUID()}`;
  const failScenario = `ui-fail-${randomUUID()}`;
  const state: { token?: string; userId?: string; tokenId?: string; laptopToken?: string } = {};
  const need = <T>(value: T | undefined, what: string): T => {
    assert(value !== undefined, `an earlier step did not ${what}`);
    return value;
  };
  const p = () => need(page, "open the browser");

  await check("GET / serves the dashboard with its strict headers", async () => {
    const res = await fetch(`${baseUrl}/`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    const html = await res.text();
    assert(
      res.status === 200 && /^text\/html/.test(res.headers.get("content-type") ?? ""),
      `GET / → ${res.status} ${res.headers.get("content-type")}`,
    );
    assert(html.includes('<div id="app"></div>'), "GET / is not the dashboard's page");
    const csp = res.headers.get("content-security-policy") ?? "";
    assert(csp.includes("default-src 'self'") && !csp.includes("unsafe-inline"), `CSP was ${JSON.stringify(csp)}`);
    assert(res.headers.get("x-content-type-options") === "nosniff", "no X-Content-Type-Options: nosniff");
    assert(res.headers.get("referrer-policy") === "no-referrer", "no Referrer-Policy: no-referrer");
    assert(res.headers.get("x-frame-options") === "DENY", "no X-Frame-Options: DENY");
  });

  try {
    await check("dashboard setup: the operator creates a team, its admin and the admin's token; Chromium starts", async () => {
      const team = await call<{ id: string }>(baseUrl, adminToken, "POST", "/teams", { name: `Dashboard ${toHex(randomBytes(3))}` });
      const admin = await call<{ id: string }>(baseUrl, adminToken, "POST", `/teams/${team.id}/users`, {
        email: "dashboard-admin@example.com",
        role: "admin",
      });
      const issued = await call<{ id: string; token: string }>(baseUrl, adminToken, "POST", `/users/${admin.id}/tokens`, {
        name: "browser",
      });
      Object.assign(state, { token: issued.token, userId: admin.id, tokenId: issued.id });
      await providerControl(providerBase, okScenario, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ responses: [{ steps: gatedChatSteps(upstreamModel) }] }),
      });
      await providerControl(providerBase, failScenario, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          responses: [
            {
              status: 404,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ error: { message: "The model `fake-missing` does not exist", type: "invalid_request_error" } }),
            },
          ],
        }),
      });
      ({ browser, close } = await launchBrowser());
      context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      context.setDefaultTimeout(UI_TIMEOUT_MS);
      context.setDefaultNavigationTimeout(UI_TIMEOUT_MS);
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
      page = await context.newPage();
      page.on("console", (m) => {
        if (m.type() === "error" && /Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
      });
      page.on("pageerror", (e) => pageErrors.push(e.message));
    });

    await check("dashboard: keyboard-only sign-in with the admin's token", async () => {
      const page = p();
      const token = need(state.token, "issue a token");
      await page.goto(`${baseUrl}/`);
      const tokenField = page.getByLabel("Token", { exact: true });
      await tokenField.waitFor();
      // Not offered to password managers, and it says how long it is kept.
      assert((await tokenField.getAttribute("autocomplete")) === "off", "the Token field does not have autocomplete=off");
      const described = ((await tokenField.getAttribute("aria-describedby")) ?? "").split(" ").filter(Boolean);
      const hints = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()));
      assert(
        hints.some((t) => t?.trim() === "Kept in this tab only; closing it signs you out."),
        `the Token field's hints: ${JSON.stringify(hints)}`,
      );
      await expectAccessible(page, "the sign-in form");
      const focused = await focusedDescription(page);
      assert(focused === "Token", `the sign-in form opened with focus on ${JSON.stringify(focused)}, not the Token field`);
      await page.keyboard.type(token);
      await page.keyboard.press("Tab");
      const onButton = await focusedDescription(page);
      assert(onButton === "Sign in", `Tab from the Token field reached ${JSON.stringify(onButton)}, not "Sign in"`);
      await page.keyboard.press("Enter");
      // The overview is the first page after sign-in.
      await page.getByRole("heading", { level: 1, name: "Overview", exact: true }).waitFor();
      const links = await nav(page).getByRole("link").allTextContents();
      assert(
        JSON.stringify(links) === JSON.stringify(["Overview", "Models", "Credentials", "Tokens", "Usage", "Runs", "Team", "Audit"]),
        `an admin's nav was ${JSON.stringify(links)}`,
      );
      assert(!page.url().includes(token), "the token is in the URL");
      assert((await page.evaluate("localStorage.length")) === 0, "something was written to localStorage");
      // The skip link is the first stop of the keyboard and moves focus to the page.
      await page.keyboard.press("Tab");
      assert((await focusedDescription(page)) === "Skip to content", "the first Tab stop is not the skip link");
      await page.keyboard.press("Enter");
      assert((await page.evaluate("document.activeElement?.tagName")) === "MAIN", "the skip link did not move focus to main");
      await expectAccessible(page, "Overview");
    });

    await check("dashboard: a credential with a bad base URL shows the API's message at the field, then is added", async () => {
      const page = p();
      await goTo(page, "Credentials");
      await expectAccessible(page, "Credentials");
      await page.getByRole("button", { name: "Add a credential" }).click();
      const form = page.locator("form", { has: page.getByRole("button", { name: "Add credential" }) });
      await form.getByLabel("Name", { exact: true }).fill("Fake provider");
      await form.getByLabel("Base URL", { exact: true }).fill("not a url");
      await form.getByLabel("API key", { exact: true }).fill(apiKey);
      await form.getByRole("button", { name: "Add credential" }).click();
      await expectFieldError(form, "Base URL", /./);
      assert((await focusedDescription(page)) === "Base URL", "focus did not move to the invalid Base URL field");
      // The key stays while the refused field is fixed, so it need not be pasted again.
      assert((await form.getByLabel("API key", { exact: true }).inputValue()) === apiKey, "the API key field was emptied by a 400");
      await expectAccessible(page, "Credentials with a field error");
      await form.getByLabel("Base URL", { exact: true }).fill(`${providerBase}/v1`);
      await form.getByRole("button", { name: "Add credential" }).click();
      const row = main(page).getByRole("row", { name: /Fake provider/ });
      await row.waitFor();
      const rowText = (await row.textContent()) ?? "";
      assert(rowText.includes(`…${apiKey.slice(-4)}`), `the row does not show the key's last four: ${rowText}`);
      assert(!(await page.content()).includes(apiKey), "the whole API key is in the page");
    });

    await check(
      "dashboard: the Audit page shows the new credential's entry, filters by action, and exports JSON Lines and CSV",
      async () => {
        const page = p();
        await goTo(page, "Audit");
        const row = main(page).getByRole("row", { name: /credential\.create.*Fake provider/ });
        await row.waitFor();
        await expectAccessible(page, "Audit");
        await main(page).getByLabel("Action", { exact: true }).selectOption("credential.create");
        await main(page).getByRole("button", { name: "Apply filters" }).click();
        await row.waitFor();
        const exported = async (button: string) => {
          const [download] = await Promise.all([page.waitForEvent("download"), main(page).getByRole("button", { name: button }).click()]);
          return { name: download.suggestedFilename(), text: readFileSync(await download.path(), "utf8") };
        };
        const jsonl = await exported("Export JSON Lines");
        const lines = jsonl.text
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { action: string; target: { name?: string } });
        assert(jsonl.name === "audit.jsonl", `the JSON Lines file is named ${jsonl.name}`);
        assert(
          lines.length > 0 && lines.every((e) => e.action === "credential.create") && lines.some((e) => e.target.name === "Fake provider"),
          `the JSON Lines export: ${jsonl.text.slice(0, 500)}`,
        );
        const csv = await exported("Export CSV");
        assert(
          csv.name === "audit.csv" && csv.text.startsWith('"id","at",') && csv.text.includes('"Fake provider"'),
          `the CSV export: ${csv.text.slice(0, 500)}`,
        );
        assert(!jsonl.text.includes(apiKey) && !csv.text.includes(apiKey), "an export holds the API key");
        await main(page).getByRole("button", { name: "Clear" }).click();
      },
    );

    await check("dashboard: an empty model form shows the API's messages inline; a model is added on the credential", async () => {
      const page = p();
      await goTo(page, "Models");
      await page.getByRole("button", { name: "Add a model" }).click();
      const form = page.locator("form", { has: page.getByRole("button", { name: "Add model" }) });
      await form.getByRole("button", { name: "Add model" }).click();
      await expectFieldError(form, "Name", /./);
      await expectFieldError(form, "Upstream model", /./);
      assert((await focusedDescription(page)) === "Name", "focus did not move to the first invalid field (Name)");
      await page.getByRole("alert").filter({ hasText: "Check the" }).waitFor();
      await expectAccessible(page, "Models with field errors");
      await form.getByLabel("Name", { exact: true }).fill("ui-model");
      await form.getByLabel("Upstream model", { exact: true }).fill(upstreamModel);
      await form.getByLabel("Context window (tokens)", { exact: true }).fill("131072");
      await form.getByLabel("Input price (USD per million tokens)", { exact: true }).fill("1.25");
      await form.getByLabel("Output price (USD per million tokens)", { exact: true }).fill("10");
      // The scenario of the fake provider rides on a model header, so that the test call (whose prompt is fixed) finds it.
      await form.getByText("Advanced settings").click();
      await form.getByRole("button", { name: "Add header" }).click();
      await form.getByLabel("Header 1 name", { exact: true }).fill("x-fake-scenario");
      await form.getByLabel("Header 1 value", { exact: true }).fill(okScenario);
      await form.getByRole("button", { name: "Add model" }).click();
      const row = main(page).getByRole("row", { name: /ui-model/ });
      await row.waitFor();
      const text = (await row.textContent()) ?? "";
      assert(text.includes("Fake provider") && text.includes(upstreamModel) && text.includes("131,072"), `the model's row: ${text}`);
    });

    await check("dashboard: Test shows the time to first token and tokens per second", async () => {
      const page = p();
      await page.getByRole("button", { name: "Test ui-model", exact: true }).click();
      // The reply waits at its gate after the first token until released: generating then takes measurable time.
      await providerControl(providerBase, `${okScenario}/reached/after-first-token?timeout_ms=${CALL_TIMEOUT_MS}`);
      await providerControl(providerBase, `${okScenario}/gates/after-first-token`, { method: "POST" });
      const result = page.getByRole("status", { name: "Model test" });
      await result.getByText("ui-model answered").waitFor();
      const figures = Object.fromEntries(
        await result.locator("dl > dt").evaluateAll((dts) => dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
      ) as Record<string, string>;
      assert(/^\d[\d,]* ms$/.test(figures["Time to first token"] ?? ""), `time to first token: ${figures["Time to first token"]}`);
      assert(/^\d[\d,.]*$/.test(figures["Tokens per second"] ?? ""), `tokens per second: ${figures["Tokens per second"]}`);
      assert(figures["Output tokens"] === "4", `output tokens: ${figures["Output tokens"]}`);
    });

    await check("dashboard: a duplicated model whose provider fails shows the provider's raw error; disable and delete it", async () => {
      const page = p();
      await page.getByRole("button", { name: "Duplicate ui-model", exact: true }).click();
      const form = page.locator("form", { has: page.getByRole("button", { name: "Add model" }) });
      assert((await form.getByLabel("Name", { exact: true }).inputValue()) === "ui-model-copy", "the duplicate is not prefilled");
      assert((await form.getByLabel("Upstream model", { exact: true }).inputValue()) === upstreamModel, "upstream model not copied");
      await form.getByLabel("Name", { exact: true }).fill("ui-model-broken");
      await form.getByText("Advanced settings").click();
      await form.getByLabel("Header 1 value", { exact: true }).fill(failScenario);
      await form.getByRole("button", { name: "Add model" }).click();
      await main(page)
        .getByRole("row", { name: /ui-model-broken/ })
        .waitFor();
      await page.getByRole("button", { name: "Test ui-model-broken", exact: true }).click();
      const result = page.getByRole("status", { name: "Model test" });
      await result.getByText("ui-model-broken failed").waitFor();
      const raw = await result.locator("pre").textContent();
      assert(raw === "provider returned HTTP 404: The model `fake-missing` does not exist", `the error shown was ${JSON.stringify(raw)}`);
      await expectAccessible(page, "Models with a failed test");

      // A refused change puts the box back and says why (the API is made to refuse it here). While
      // the change is out the box ignores another click (here by keyboard: it keeps focus), so no
      // second change races the first.
      const enabledBox = page.getByRole("checkbox", { name: "ui-model-broken enabled" });
      const refusal = {
        status: 503,
        contentType: "application/json",
        body: JSON.stringify({ error: { code: "unavailable", message: "try again later" } }),
      };
      const release = deferred();
      let patches = 0;
      await page.route("**/api/v1/models/*", async (route) => {
        if (route.request().method() !== "PATCH") return route.fallback();
        patches += 1;
        await release.promise;
        await route.fulfill(refusal);
      });
      await enabledBox.click();
      await page.locator('input[aria-label="ui-model-broken enabled"][aria-disabled="true"]').waitFor();
      await page.keyboard.press("Space");
      assert(!(await enabledBox.isChecked()), "a second click while the change was out toggled the box again");
      const focused = await focusedDescription(page);
      assert(focused === "ui-model-broken enabled", `the box lost focus while its change was out, to ${JSON.stringify(focused)}`);
      release.resolve();
      await page.getByRole("alert").filter({ hasText: "Could not disable ui-model-broken: try again later" }).waitFor();
      assert(await enabledBox.isChecked(), "the Enabled box stayed cleared after the API refused the change");
      assert(patches === 1, `the box sent ${patches} changes for one accepted click`);
      await page.unroute("**/api/v1/models/*");
      await enabledBox.uncheck();
      await page.getByRole("status").filter({ hasText: "ui-model-broken disabled." }).waitFor();
      assert(!(await page.getByRole("alert").filter({ hasText: "Could not disable" }).isVisible()), "the refusal is still shown");
      // A refusal after a success takes the success's news away: it is no longer what is stored.
      await page.route("**/api/v1/models/*", (route) => (route.request().method() === "PATCH" ? route.fulfill(refusal) : route.fallback()));
      await enabledBox.click();
      await page.getByRole("alert").filter({ hasText: "Could not enable ui-model-broken: try again later" }).waitFor();
      assert(
        !(await page.getByRole("status").filter({ hasText: "ui-model-broken disabled." }).isVisible()),
        "the earlier success is still shown",
      );
      await page.unroute("**/api/v1/models/*");
      const models = await call<{ models: { name: string; enabled: boolean }[] }>(baseUrl, need(state.token, "sign in"), "GET", "/models");
      assert(models.models.find((m) => m.name === "ui-model-broken")?.enabled === false, "the toggle did not disable the model");

      // The confirmation is a modal dialog: Escape cancels and focus returns to the button that opened it.
      const del = page.getByRole("button", { name: "Delete ui-model-broken", exact: true });
      await del.click();
      const dialog = page.getByRole("dialog", { name: "Delete ui-model-broken?" });
      await dialog.waitFor();
      assert((await focusedDescription(page)) === "Cancel", "the confirmation did not start on Cancel");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      const back = await focusedDescription(page);
      assert(back === "Delete ui-model-broken", `focus did not return to the Delete button but to ${JSON.stringify(back)}`);
      await del.click();
      await dialog.getByRole("button", { name: "Delete model" }).click();
      await main(page)
        .getByRole("row", { name: /ui-model-broken/ })
        .waitFor({ state: "detached" });
    });

    await check("dashboard: editing a model saves it (its test header removed)", async () => {
      const page = p();
      await page.getByRole("button", { name: "Edit ui-model", exact: true }).click();
      const form = page.locator("form", { has: page.getByRole("button", { name: "Save model" }) });
      await form.getByText("Advanced settings").click();
      await form.getByRole("button", { name: "Remove header 1" }).click();
      await form.getByRole("button", { name: "Save model" }).click();
      await page.getByRole("status").filter({ hasText: "ui-model saved." }).waitFor();
      const models = await call<{ models: { name: string; header_names: string[] }[] }>(
        baseUrl,
        need(state.token, "sign in"),
        "GET",
        "/models",
      );
      const names = models.models.find((m) => m.name === "ui-model")?.header_names;
      assert(names !== undefined && names.length === 0, `the edit did not clear the model's headers: ${JSON.stringify(names)}`);
    });

    await check(
      "dashboard: a provider preset fills the credential form; Azure's URL is built from its names; a local server is added without a key",
      async () => {
        const page = p();
        await goTo(page, "Credentials");
        await page.getByRole("button", { name: "Add a credential" }).click();
        const form = page.locator("form", { has: page.getByRole("button", { name: "Add credential" }) });
        const field = (label: string) => form.getByLabel(label, { exact: true });
        const hintsOf = async (label: string) => {
          const ids = ((await field(label).getAttribute("aria-describedby")) ?? "").split(" ").filter(Boolean);
          return (await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()))).join(" ");
        };

        await field("Provider preset").selectOption({ label: "OpenAI" });
        assert((await field("Provider").inputValue()) === "openai-responses", "the OpenAI preset did not pick the Responses API");
        assert((await field("Base URL").inputValue()) === "https://api.openai.com/v1", "the OpenAI preset did not fill the base URL");
        assert((await field("Name").inputValue()) === "OpenAI", "the OpenAI preset did not name the credential");
        assert((await hintsOf("API key")).includes("Starts with sk-"), `the key's hint: ${await hintsOf("API key")}`);
        await form.getByRole("link", { name: "Where to find the key" }).waitFor();
        // A hosted service needs a key: the form says so before anything is sent.
        await form.getByRole("button", { name: "Add credential" }).click();
        await expectFieldError(form, "API key", /OpenAI needs a key/);
        await expectAccessible(page, "Credentials with a preset picked");

        // Azure: the deployment URL is built from the resource and deployment names; one left out is named.
        await field("Provider preset").selectOption({ label: "Azure OpenAI (a deployment)" });
        assert((await field("Name").inputValue()) === "Azure OpenAI", "the name did not follow the preset");
        await field("Azure resource name").fill("contoso");
        await field("API key").fill("azure-key-0123456789abcdef");
        await form.getByRole("button", { name: "Add credential" }).click();
        await expectFieldError(form, "Base URL", /Replace \{deployment\} in the base URL \(fill in Deployment name\)/);
        await field("Deployment name").fill("gpt-4o-prod");
        const azureUrl = await field("Base URL").inputValue();
        assert(
          azureUrl === "https://contoso.openai.azure.com/openai/deployments/gpt-4o-prod?api-version=2024-10-21",
          `the Azure base URL was ${azureUrl}`,
        );

        // A local server checks no key: the key stays empty and the credential is stored without one.
        await field("Provider preset").selectOption({ label: "vLLM (on this machine)" });
        await field("API key").fill("");
        assert((await field("Base URL").inputValue()) === "http://127.0.0.1:8000/v1", "the vLLM preset did not fill its loopback URL");
        assert((await field("Provider").inputValue()) === "openai-chat", "the vLLM preset did not pick Chat Completions");
        assert((await hintsOf("API key")).includes("checks no key"), `the key's hint: ${await hintsOf("API key")}`);
        assert(
          (await hintsOf("Provider preset")).includes("BYOK_ALLOW_PRIVATE_UPSTREAMS=true"),
          "the local preset does not say where loopback is allowed",
        );
        await form.getByRole("button", { name: "Add credential" }).click();
        await page.getByRole("status").filter({ hasText: "vLLM added, without a key." }).waitFor();
        const row = main(page).getByRole("row", { name: /vLLM/ });
        assert(/none/.test((await row.textContent()) ?? ""), `the keyless credential's row: ${await row.textContent()}`);
        const stored = await call<{ credentials: { name: string; base_url: string; provider: string; has_key: boolean }[] }>(
          baseUrl,
          need(state.token, "sign in"),
          "GET",
          "/credentials",
        );
        const vllm = stored.credentials.find((c) => c.name === "vLLM");
        assert(
          vllm?.base_url === "http://127.0.0.1:8000/v1" && vllm.provider === "openai-chat" && vllm.has_key === false,
          `the stored vLLM credential: ${JSON.stringify(vllm)}`,
        );

        // And the OpenAI one, with its key, for the catalogue check that follows.
        await page.getByRole("button", { name: "Add a credential" }).click();
        await field("Provider preset").selectOption({ label: "OpenAI" });
        await field("API key").fill(`sk-preset-${toHex(randomBytes(8))}`);
        await form.getByRole("button", { name: "Add credential" }).click();
        await main(page)
          .getByRole("row", { name: /openai-responses/ })
          .waitFor();
      },
    );

    await check("dashboard: a model is filled in from the catalogue, one of its fields overridden, and saved", async () => {
      const page = p();
      const token = need(state.token, "sign in");
      const expected = await lookUpModel({ provider: "openai-responses", base_url: "https://api.openai.com/v1" }, "gpt-4.1");
      assert(
        expected.fields.context_window && expected.fields.max_output_tokens,
        `the catalogue lacks gpt-4.1: ${JSON.stringify(expected)}`,
      );
      await goTo(page, "Models");
      await page.getByRole("button", { name: "Add a model" }).click();
      const form = page.locator("form", { has: page.getByRole("button", { name: "Add model" }) });
      const field = (label: string) => form.getByLabel(label, { exact: true });
      await field("Name").fill("ui-catalogue");
      await field("Credential").selectOption({ label: "OpenAI (openai-responses, personal)" });
      await field("Upstream model").fill("gpt-4.1");
      await form.getByRole("button", { name: "Fill in from the catalogue" }).click();
      await form.getByRole("status").filter({ hasText: "Filled in from the catalogue's gpt 4.1 (OpenAI)" }).waitFor();
      assert((await field("Context window (tokens)").inputValue()) === expected.fields.context_window, "context window not filled");
      assert((await field("Input price (USD per million tokens)").inputValue()) === "2", "input price not filled");
      // What it set under Advanced settings is shown: the section opened.
      assert((await field("Max output tokens").inputValue()) === expected.fields.max_output_tokens, "max output tokens not filled");
      assert(await field("Takes images").isChecked(), "Takes images not set from the catalogue");
      await expectAccessible(page, "the model form filled from the catalogue");
      await field("Input price (USD per million tokens)").fill("1.5");
      await form.getByRole("button", { name: "Add model" }).click();
      await main(page)
        .getByRole("row", { name: /ui-catalogue/ })
        .waitFor();
      const models = await call<{ models: Record<string, unknown>[] }>(baseUrl, token, "GET", "/models");
      const saved = models.models.find((m) => m.name === "ui-catalogue");
      assert(
        saved?.price_input_per_mtok === 1.5 &&
          saved.price_output_per_mtok === Number(expected.fields.price_output_per_mtok) &&
          saved.context_window === Number(expected.fields.context_window) &&
          saved.max_output_tokens === Number(expected.fields.max_output_tokens) &&
          saved.vision === true &&
          saved.model === "gpt-4.1",
        `the saved model: ${JSON.stringify(saved)}`,
      );
      // Left as the other checks found it: the model and the preset credentials go.
      await call(baseUrl, token, "DELETE", `/models/${String(saved.id)}`);
      const creds = await call<{ credentials: { id: string; name: string }[] }>(baseUrl, token, "GET", "/credentials");
      for (const c of creds.credentials.filter((c) => c.name === "OpenAI" || c.name === "vLLM")) {
        await call(baseUrl, token, "DELETE", `/credentials/${c.id}`);
      }
      await goTo(page, "Credentials");
      await goTo(page, "Models");
    });

    await check("dashboard: a turn on the new model shows in Runs and in the Usage table and chart", async () => {
      const page = p();
      const token = need(state.token, "sign in");
      const conversationId = await opts.turn(token, "ui-model", apiKey);
      // Runs and usage are recorded after the run ends (waitUntil): wait for the API to have them, then look.
      const turnRun = await until("the run in GET /runs", CALL_TIMEOUT_MS, async () => {
        const runs = await call<{
          runs: { conversation_id: string; status: string | null; input_tokens: number; output_tokens: number }[];
        }>(baseUrl, token, "GET", "/runs");
        return runs.runs.find((r) => r.conversation_id === conversationId && r.status !== null && r.status !== "running");
      });
      assert(turnRun.input_tokens > 0 && turnRun.output_tokens > 0, `the turn's run counted no tokens: ${JSON.stringify(turnRun)}`);
      const today = new Date().toISOString().slice(0, 10);
      await until("the turn's usage", CALL_TIMEOUT_MS, async () => {
        const usage = await call<{ rows: { day: string; input_tokens: number; output_tokens: number }[] }>(baseUrl, token, "GET", "/usage");
        const day = usage.rows.find((r) => r.day === today);
        return day && day.input_tokens >= turnRun.input_tokens && day.output_tokens >= turnRun.output_tokens ? day : undefined;
      });
      await goTo(page, "Runs");
      await page
        .getByRole("table", { name: /Recent conversations/ })
        .getByRole("row", { name: /ui-model/ })
        .first()
        .waitFor();
      await expectAccessible(page, "Runs by conversation");
      await page.getByRole("button", { name: "All recent runs" }).click();
      const run = page
        .getByRole("table", { name: "Recent runs, newest first" })
        .getByRole("row", { name: /ui-model/ })
        .first();
      await run.waitFor();
      await run.getByRole("button", { name: /^Details \(1\)/ }).click();
      const calls = page.getByRole("table", { name: "Provider calls" });
      await calls.getByRole("row", { name: /openai-chat/ }).waitFor();
      await expectAccessible(page, "Runs with a run's provider calls");

      // The overview has today's run, the model's time to first token, and a link into Runs.
      await goTo(page, "Overview");
      await page
        .getByRole("table", { name: "Time to first token per model" })
        .getByRole("row", { name: /ui-model/ })
        .waitFor();
      const runsToday = Number((await page.locator("dl.figures dd").first().textContent())?.replace(/\D/g, ""));
      assert(runsToday >= 1, `the overview shows ${runsToday} runs today`);
      await page.getByRole("table", { name: "Top users by cost" }).waitFor();
      await expectAccessible(page, "Overview");
      await page.getByRole("table", { name: "Today's slowest calls" }).getByRole("link", { name: "Open in Runs" }).first().click();
      await page.getByRole("table", { name: "Provider calls" }).waitFor();

      await goTo(page, "Usage");
      await page
        .getByRole("table", { name: "Usage per model" })
        .getByRole("row", { name: /ui-model/ })
        .waitFor();
      // Today's row of the per-day table has the turn: a request, its input and output tokens at least.
      const todayRow = page.getByRole("table", { name: "Usage per day" }).getByRole("row", { name: new RegExp(`^${today}`) });
      const cells = (await todayRow.locator("td").allTextContents()).map((t) => Number(t.replace(/[^\d.]/g, "")));
      const [requests = 0, input = 0, output = 0] = cells;
      assert(
        requests >= 1 && input >= turnRun.input_tokens && output >= turnRun.output_tokens,
        `today's usage row is ${JSON.stringify(cells)}; the turn had ${turnRun.input_tokens} in, ${turnRun.output_tokens} out`,
      );
      // The charts drew those figures (each plot notes the totals of what it was given).
      const totalsOf = async (caption: string) => {
        const plot = page.locator("figure", { has: page.getByText(caption, { exact: true }) }).locator(".chart-plot[data-totals]");
        await plot.locator("canvas").first().waitFor();
        return JSON.parse((await plot.getAttribute("data-totals")) ?? "{}") as Record<string, number>;
      };
      const perDay = await totalsOf("Tokens per day");
      assert(
        (perDay.Input ?? 0) >= turnRun.input_tokens && (perDay.Output ?? 0) >= turnRun.output_tokens,
        `the tokens-per-day chart was drawn with ${JSON.stringify(perDay)}`,
      );
      const perModel = await totalsOf("Tokens per model");
      assert(
        (perModel.Input ?? 0) > 0 && (perModel.Output ?? 0) > 0,
        `the tokens-per-model chart was drawn with ${JSON.stringify(perModel)}`,
      );
      for (const caption of ["Cache-hit rate per model", "Cost per model", "Tokens per user", "Cost per user"]) await totalsOf(caption);
      await expectAccessible(page, "Usage");

      await goTo(page, "Team");
      await expectAccessible(page, "Team");
    });

    await check("dashboard: the Team page's forms show their errors at the fields; a user is added and the budget saved", async () => {
      const page = p();
      await goTo(page, "Team");
      const add = page.getByRole("form", { name: "Add a user" });
      await add.getByLabel("Email", { exact: true }).fill("not-an-email");
      await add.getByLabel("Requests per minute", { exact: true }).fill("0");
      await add.getByRole("button", { name: "Add user" }).click();
      await expectFieldError(add, "Email", /email address/);
      await expectFieldError(add, "Requests per minute", /at least 1/);
      assert((await focusedDescription(page)) === "Email", "focus did not move to the first invalid field (Email)");
      await add.getByRole("alert").filter({ hasText: "Check the 2 fields" }).waitFor();
      await add.getByLabel("Email", { exact: true }).fill("dashboard-member@example.com");
      await add.getByLabel("Requests per minute", { exact: true }).fill("");
      await add.getByRole("button", { name: "Add user" }).click();
      await page
        .getByRole("table", { name: "Users of the team" })
        .getByRole("row", { name: /dashboard-member@example\.com/ })
        .waitFor();
      assert((await add.getByLabel("Email", { exact: true }).inputValue()) === "", "the add form was not emptied after adding");
      // The API's 409 for a taken email shows at the Email field.
      await add.getByLabel("Email", { exact: true }).fill("dashboard-member@example.com");
      await add.getByRole("button", { name: "Add user" }).click();
      await expectFieldError(add, "Email", /already has a user with that email/);

      const settings = page.getByRole("form", { name: "Settings" });
      await settings.getByLabel("Monthly token budget", { exact: true }).fill("lots");
      await settings.getByRole("button", { name: "Save team" }).click();
      await expectFieldError(settings, "Monthly token budget", /whole number/);
      await settings.getByLabel("Monthly token budget", { exact: true }).fill("1,000,000");
      // The CPU per code-mode cell: the API's range is shown at the field, then a good value saved.
      await settings.getByLabel("Code-mode CPU per cell (ms)", { exact: true }).fill("500");
      await settings.getByRole("button", { name: "Save team" }).click();
      await expectFieldError(settings, "Code-mode CPU per cell (ms)", /1000/);
      await settings.getByLabel("Code-mode CPU per cell (ms)", { exact: true }).fill("60,000");
      await settings.getByRole("button", { name: "Save team" }).click();
      await settings.getByRole("status").filter({ hasText: "Team saved." }).waitFor();
      const saved = await call<{ teams: { code_mode_cpu_ms: number | null }[] }>(baseUrl, need(state.token, "sign in"), "GET", "/teams");
      assert(saved.teams[0]?.code_mode_cpu_ms === 60_000, `the team's CPU per cell was saved as ${saved.teams[0]?.code_mode_cpu_ms}`);
      await page
        .getByText(/of 1,000,000 tokens/)
        .first()
        .waitFor();
      await expectAccessible(page, "Team after its forms were used");
    });

    await check("dashboard: a new token is shown once with Copy; revoking the signed-in token signs out", async () => {
      const page = p();
      await goTo(page, "Tokens");
      await expectAccessible(page, "Tokens");
      // The signed-in token was issued by the operator, not its user: its row says so.
      await main(page)
        .getByRole("row", { name: /issued by operator/ })
        .waitFor();
      const issue = page.locator("form", { has: page.getByRole("button", { name: "Issue token" }) });
      await issue.getByLabel("Name", { exact: true }).fill("laptop");
      await issue.getByRole("button", { name: "Issue token" }).click();
      const panel = page.getByRole("region", { name: "New token: laptop" });
      await panel.waitFor();
      await panel.getByText("it will not be shown again").waitFor();
      const shown = await panel.getByLabel("Token", { exact: true }).inputValue();
      state.laptopToken = shown;
      assert(/^byok_[\w-]{20,}$/.test(shown), `the new token looks like ${JSON.stringify(shown)}`);
      await panel.getByRole("button", { name: "Copy" }).click();
      await panel
        .getByRole("status")
        .filter({ hasText: /Copied|selected/ })
        .waitFor();
      const copied = (await panel.getByRole("status").textContent()) ?? "";
      if (copied.includes("Copied")) {
        assert((await page.evaluate("navigator.clipboard.readText()")) === shown, "the clipboard does not hold the token");
      }
      const me = await call<{ user: { email: string } }>(baseUrl, shown, "GET", "/me");
      assert(me.user.email === "dashboard-admin@example.com", "the new token is not the admin's");
      await panel.getByRole("button", { name: "Done" }).click();
      await panel.waitFor({ state: "detached" });
      assert(!(await page.content()).includes(shown), "the token is still in the page after Done");
      await page.getByRole("row", { name: /laptop/ }).waitFor();

      await page.getByRole("button", { name: "Revoke browser", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Revoke browser?" });
      await dialog.getByText("you will be signed out").waitFor();
      await dialog.getByRole("button", { name: "Revoke token" }).click();
      await page.getByRole("alert").filter({ hasText: SESSION_ENDED }).waitFor();
      await page.getByLabel("Token", { exact: true }).waitFor();
      assert((await page.evaluate("sessionStorage.length")) === 0, "the token is still in sessionStorage");
      await expectAccessible(page, "the sign-in form after the session ended");
      const res = await fetch(`${baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${need(state.token, "sign in")}` },
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      await res.body?.cancel();
      assert(res.status === 401, `the revoked token still gets HTTP ${res.status}`);
    });

    await check("dashboard: a token revoked elsewhere ends the session at the next call, with the same message", async () => {
      const page = p();
      const laptop = need(state.laptopToken, "issue the laptop token");
      await page.getByLabel("Token", { exact: true }).fill(laptop);
      await page.getByRole("button", { name: "Sign in" }).click();
      // Signing in again keeps the page the tab was on.
      await page.getByRole("heading", { level: 1, name: "Tokens", exact: true }).waitFor();
      const me = await call<{ token: { id: string } | null }>(baseUrl, laptop, "GET", "/me");
      await call(baseUrl, adminToken, "DELETE", `/tokens/${need(me.token?.id, "name the token in /me")}`);
      await nav(page).getByRole("link", { name: "Credentials", exact: true }).click();
      await page.getByRole("alert").filter({ hasText: SESSION_ENDED }).waitFor();
      await page.getByLabel("Token", { exact: true }).waitFor();
      assert((await page.evaluate("sessionStorage.length")) === 0, "the token is still in sessionStorage");
    });

    await check(
      "GET /api/docs: Swagger UI from the deployment's own files, under the same strict CSP, shows the admin API's operations",
      async () => {
        const res = await fetch(`${baseUrl}/api/docs`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
        const html = await res.text();
        assert(res.status === 200 && /^text\/html/.test(res.headers.get("content-type") ?? ""), `GET /api/docs → ${res.status}`);
        assert(html.includes('<div id="swagger-ui"></div>'), "GET /api/docs is not the docs page");
        const csp = res.headers.get("content-security-policy") ?? "";
        assert(csp.includes("default-src 'self'") && !/unsafe-inline|unsafe-eval/.test(csp), `CSP was ${JSON.stringify(csp)}`);
        const page = p();
        const elsewhere: string[] = [];
        const origin = new URL(baseUrl).origin;
        const onRequest = (request: { url(): string }) => {
          const url = request.url();
          if (!url.startsWith("data:") && new URL(url).origin !== origin) elsewhere.push(url);
        };
        page.on("request", onRequest);
        try {
          await page.goto(`${baseUrl}/api/docs`);
          await page.locator(".opblock-summary-path", { hasText: "/api/v1/teams" }).first().waitFor();
          const operations = await page.locator(".opblock").count();
          assert(operations > 10, `only ${operations} operations rendered`);
        } finally {
          page.off("request", onRequest);
        }
        assert(elsewhere.length === 0, `the docs page fetched from other origins: ${elsewhere.join(", ")}`);
      },
    );

    await check("dashboard: no page broke the CSP or threw", async () => {
      assert(cspViolations.length === 0, `CSP violations: ${cspViolations.join("; ")}`);
      assert(pageErrors.length === 0, `page errors: ${pageErrors.join("; ")}`);
    });
  } finally {
    await context?.close().catch(() => {});
    await close?.().catch(() => {});
  }
}
