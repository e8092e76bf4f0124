// Headless Chromium for the dashboard's browser check and screenshots: Debian's
// `chromium` (CHROMIUM_PATH or /usr/bin/chromium) driven by playwright-core, so no
// browser is downloaded. Bounded: launching and every action time out.
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const LAUNCH_TIMEOUT_MS = 30_000;

export async function launchBrowser(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: apt-get install chromium, or set CHROMIUM_PATH`);
  const browser = await chromium.launch({ executablePath, headless: true, timeout: LAUNCH_TIMEOUT_MS, args: ["--no-sandbox"] });
  return { browser, close: () => browser.close() };
}
