/**
 * The web UI as a place to live in, in Debian's Chromium against a real daemon and the fake
 * provider: markdown tables and highlighted code with no Content-Security-Policy error; a reload
 * mid-answer shows the answer whole, thinking included; an interrupted answer stays, marked
 * interrupted; dark mode; a phone-size viewport. Screenshots go to test-output/web/.
 */
import type { Browser, BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";
import { profileFor } from "../e2e/support/fixture.js";
import { text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { launchChromium, loginLink, screenshot } from "./support/browser.js";

const tableAnswer = [
  "Here are the figures:\n\n",
  "| name | count | note |\n",
  "| :--- | ---: | :---: |\n",
  "| apples | 12 | fresh |\n",
  "| pears | 7 | ripe |\n\n",
  "```typescript\nconst total: number = 12 + 7; // sum\n```\n",
];

describe("the web UI to live in, in Chromium", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Console errors and page errors of every page of the context. */
  const consoleErrors: string[] = [];

  const base = () => `http://127.0.0.1:${app.port}`;
  const watchConsole = (tab: Page): void => {
    tab.on("console", (message: ConsoleMessage) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    tab.on("pageerror", (error) => consoleErrors.push(error.message));
  };

  beforeAll(async () => {
    provider = await FakeProvider.start();
    app = await DaemonHarness.start({ providers: profileFor(provider) });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    page = await context.newPage();
    watchConsole(page);
    await page.goto(loginLink(app.home, app.root));
    await page.getByTestId("session-list").waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await provider?.close();
  });

  it("renders a markdown table with its alignments and highlighted code, with no console error", async () => {
    const sessionId = await app.createSession();
    provider.queue(text(tableAnswer));
    await app.turn(sessionId, "a table, please");
    consoleErrors.length = 0;
    await page.goto(`${base()}/#/sessions/${sessionId}`);
    const table = page.locator('[data-kind="assistant"] .markdown table');
    await table.waitFor();
    expect(await table.locator("tbody tr").count()).toBe(2);
    const aligns = await table
      .locator("tbody tr")
      .first()
      .locator("td")
      .evaluateAll((cells) => cells.map((cell) => getComputedStyle(cell).textAlign));
    expect(aligns).toEqual(["left", "right", "center"]);
    expect(await table.locator("[style]").count()).toBe(0);
    const keyword = page.locator('[data-kind="assistant"] pre code .hljs-keyword', { hasText: "const" });
    await keyword.waitFor();
    const plain = await page
      .locator('[data-kind="assistant"] .markdown p')
      .first()
      .evaluate((node) => getComputedStyle(node).color);
    expect(await keyword.evaluate((node) => getComputedStyle(node).color)).not.toBe(plain);
    await screenshot(page, "markdown-table");
    // Give a late CSP report the time to reach the console.
    await page.waitForTimeout(300);
    expect(consoleErrors).toEqual([]);
  });
});
