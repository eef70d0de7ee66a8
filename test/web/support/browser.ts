/**
 * Debian's Chromium driven by playwright-core, for the web UI's tests and benchmark: headless,
 * a fresh profile per launch, no network of its own (no background requests, no component
 * updates), and login links from the real `skein web --print`.
 *
 * Boundary rule: test support. No browser is ever downloaded: /usr/bin/chromium must be
 * installed (Debian's `chromium` package; .ci/run installs it).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { skeinBin } from "../../e2e/support/daemon-harness.js";

const chromiumPath = "/usr/bin/chromium";

/** Where the tests save screenshots for a person to look at (git-ignored). */
const screenshotDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../test-output/web");

/** Start Chromium headless. Throws, saying how to install it, when it is missing. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(`${chromiumPath} is missing: install Debian's chromium (apt-get install -y chromium)`);
  }
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A one-time login link printed by `skein web --print` for the daemon of `home`. */
export function loginLink(home: string, root: string): string {
  const run = spawnSync(process.execPath, [skeinBin, "--home", home, "web", "--print"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, SKEIN_NO_AUTOSTART: "1" },
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`skein web --print failed (${run.status}): ${run.stderr}`);
  return run.stdout.trim();
}

/** Save a screenshot of `page` as test-output/web/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: false });
}

/** Open a login link in `page` and wait until its page signed the browser in and reached `/`. */
export async function openLoginLink(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page.waitForURL((url) => url.pathname === "/");
}
