/**
 * The web UI as a place to live in, in Debian's Chromium against a real daemon and the fake
 * provider: markdown tables and highlighted code with no Content-Security-Policy error; a reload
 * mid-answer shows the answer whole, thinking included; an interrupted answer stays, marked
 * interrupted, after a reload too (from history); dark mode; a phone-size viewport (an approval answered there); the sidebar's
 * search; the approvals inbox across sessions. Screenshots go to test-output/web/.
 */

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";
import { profileFor } from "../e2e/support/fixture.js";
import { reasoning, text, toolCalls } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { launchChromium, loginLink, openLoginLink, screenshot } from "./support/browser.js";

const words = (count: number) => Array.from({ length: count }, (_, index) => `word${index} `);

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
    await openLoginLink(page, loginLink(app.home, app.root));
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
      .evaluateAll((cells) =>
        cells.map((cell) => cell.ownerDocument.defaultView!.getComputedStyle(cell).textAlign),
      );
    expect(aligns).toEqual(["left", "right", "center"]);
    expect(await table.locator("[style]").count()).toBe(0);
    const keyword = page.locator('[data-kind="assistant"] pre code .hljs-keyword', { hasText: "const" });
    await keyword.waitFor();
    const plain = await page
      .locator('[data-kind="assistant"] .markdown p')
      .first()
      .evaluate((node) => node.ownerDocument.defaultView!.getComputedStyle(node).color);
    expect(
      await keyword.evaluate((node) => node.ownerDocument.defaultView!.getComputedStyle(node).color),
    ).not.toBe(plain);
    await screenshot(page, "markdown-table");
    // Give a late CSP report the time to reach the console.
    await page.waitForTimeout(300);
    expect(consoleErrors).toEqual([]);
  });

  async function waitIdle(): Promise<void> {
    await page.locator('[data-testid="status"]', { hasText: "idle" }).waitFor();
  }

  it("shows the answer whole, its thinking included, when the page is reloaded mid-answer", async () => {
    const sessionId = await app.createSession();
    await page.goto(`${base()}/#/sessions/${sessionId}`);
    await waitIdle();
    provider.queue(
      reasoning(["I weigh ", "the question ", "carefully."], text(words(300), { delivery: { delayMs: 25 } })),
    );
    await app.prompt(sessionId, "think, then answer at length");
    await page.getByTestId("draft").filter({ hasText: "word40" }).waitFor();
    consoleErrors.length = 0;
    await page.reload();
    const draft = page.locator('[data-testid="draft"] .markdown');
    await draft.filter({ hasText: "word60" }).waitFor();
    expect(await draft.textContent()).toMatch(/^word0 word1 word2 /);
    expect(await page.getByTestId("draft-thinking").textContent()).toContain(
      "I weigh the question carefully.",
    );
    await screenshot(page, "reload-mid-answer");
    await page.locator('[data-kind="assistant"]', { hasText: "word299" }).waitFor({ timeout: 30_000 });
    await waitIdle();
    expect(await page.getByTestId("draft").count()).toBe(0);
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it("keeps an interrupted answer where it stood, marked interrupted, under the next turn's entries", async () => {
    const sessionId = await app.createSession();
    await page.goto(`${base()}/#/sessions/${sessionId}`);
    await waitIdle();
    provider.queue(text(words(400), { delivery: { delayMs: 25 } }), text("the answer after the interrupt"));
    await page.getByLabel("Message").fill("a long answer to interrupt");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByTestId("draft").filter({ hasText: "word10" }).waitFor();
    await page.getByRole("button", { name: "Interrupt" }).click();
    await page.getByTestId("notice").filter({ hasText: "interrupted" }).waitFor();
    await waitIdle();
    expect(await page.getByTestId("draft").count()).toBe(0);
    const kept = page.getByTestId("interrupted-answer");
    await kept.waitFor();
    expect(await kept.textContent()).toMatch(/interrupted.*word0 word1 .*word10 /s);
    expect(await kept.textContent()).not.toContain("word399");

    await page.getByLabel("Message").fill("and now?");
    await page.getByRole("button", { name: "Send" }).click();
    const next = page.locator('[data-kind="assistant"]', { hasText: "the answer after the interrupt" });
    await next.waitFor();
    // In reading order: the interrupted answer, the next message, its answer.
    const readingOrder = async () =>
      (
        await page
          .locator('[data-testid="interrupted-answer"], [data-kind="user"], [data-kind="assistant"]')
          .allTextContents()
      ).map((shown) => (shown.includes("word0 word1") ? "interrupted" : shown.replace(/\s+/g, " ").trim()));
    const expected = [
      expect.stringContaining("a long answer to interrupt"),
      "interrupted",
      expect.stringContaining("and now?"),
      expect.stringContaining("the answer after the interrupt"),
    ];
    expect(await readingOrder()).toEqual(expected);
    await screenshot(page, "interrupted-answer");

    // The log keeps it: a reload shows it from history, in its place, still marked interrupted.
    await page.reload();
    await next.waitFor();
    expect(await readingOrder()).toEqual(expected);
    const reloaded = page.getByTestId("interrupted-answer");
    expect(await reloaded.locator(".interrupted-mark").textContent()).toBe("interrupted");
    expect(await reloaded.textContent()).toMatch(/word0 word1 .*word10 /s);
    await screenshot(page, "interrupted-answer-reloaded");
  }, 60_000);

  /** The page's root background colour and theme attribute. */
  async function themeOf(tab: Page): Promise<{ theme: string | null; background: string }> {
    return tab.locator("html").evaluate((root) => ({
      theme: root.getAttribute("data-theme"),
      background: root.ownerDocument.defaultView!.getComputedStyle(root).backgroundColor,
    }));
  }

  it("follows the system's dark mode, and a toggle that the browser remembers", async () => {
    const dark = await browser.newContext({ viewport: { width: 1100, height: 800 }, colorScheme: "dark" });
    const tab = await dark.newPage();
    watchConsole(tab);
    await openLoginLink(tab, loginLink(app.home, app.root));
    await tab.getByTestId("session-list").waitFor();
    const sessionId = await app.createSession();
    provider.queue(text(tableAnswer));
    await app.turn(sessionId, "a table in the dark");
    await tab.goto(`${base()}/#/sessions/${sessionId}`);
    await tab.locator('[data-kind="assistant"] .markdown table').waitFor();
    const inDark = await themeOf(tab);
    expect(inDark.theme).toBe("dark");
    await screenshot(tab, "session-dark");

    await tab.getByTestId("theme-toggle").click();
    const inLight = await themeOf(tab);
    expect(inLight.theme).toBe("light");
    expect(inLight.background).not.toBe(inDark.background);
    await tab.reload();
    await tab.locator('[data-kind="assistant"] .markdown table').waitFor();
    expect(await themeOf(tab)).toEqual(inLight);
    await tab.getByTestId("theme-toggle").click();
    expect(await themeOf(tab)).toEqual(inDark);
    await dark.close();

    // A light system, nothing saved: light.
    expect((await themeOf(page)).theme).toBe("light");
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it("is usable on a phone, 390 px wide: no sideways scrolling, a prompt sent and answered", async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const tab = await phone.newPage();
    watchConsole(tab);
    const overflow = () => tab.locator("html").evaluate((root) => root.scrollWidth - root.clientWidth);
    await openLoginLink(tab, loginLink(app.home, app.root));
    await tab.getByTestId("session-list").waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(tab, "phone-sessions");

    const sessionId = await app.createSession();
    await tab.goto(`${base()}/#/sessions/${sessionId}`);
    await tab.getByTestId("status").waitFor();
    provider.queue(text(tableAnswer));
    const message = tab.getByLabel("Message");
    expect(await message.isVisible()).toBe(true);
    await message.fill("a table on a phone");
    await tab.getByRole("button", { name: "Send" }).tap();
    await tab.locator('[data-kind="assistant"] .markdown table').waitFor();
    await tab.locator('[data-testid="status"]', { hasText: "idle" }).waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    const send = await tab.getByRole("button", { name: "Send" }).boundingBox();
    expect(send).not.toBeNull();
    expect(send!.y + send!.height).toBeLessThanOrEqual(844);
    await screenshot(tab, "phone-session");

    // An approval answered from the phone's sessions page (its inbox), and the turn goes on.
    const asking = await app.createSession({ name: "asks the phone", approval_policy: { default: "ask" } });
    provider.queue(
      toolCalls([{ name: "write_file", args: { path: "phone.txt", content: "tapped\n" }, id: "call_phone" }]),
      text("written after the tap"),
    );
    await tab.goto(`${base()}/#/`);
    await tab.getByTestId("session-list").waitFor();
    await app.prompt(asking, "write phone.txt, asking first");
    const card = tab.locator(`[data-testid="approvals-inbox"] [data-call-id="call_phone"]`);
    await card.waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(tab, "phone-inbox");
    await card.getByRole("button", { name: "Allow" }).tap();
    await app.idle(asking);
    expect(readFileSync(join(app.workspace, "phone.txt"), "utf8")).toBe("tapped\n");
    await tab.getByTestId("approvals-inbox").waitFor({ state: "detached" });
    await phone.close();
    expect(consoleErrors).toEqual([]);
  }, 60_000);

  it("finds sessions from the sidebar's search", async () => {
    const apples = await app.createSession({ name: "apple orchard notes" });
    const pears = await app.createSession({ name: "pear harvest plan" });
    await page.goto(`${base()}/#/sessions/${apples}`);
    const sidebar = page.getByTestId("sidebar");
    await sidebar.locator(`[data-session-id="${pears}"]`).waitFor();
    await sidebar.getByLabel("Search sessions").fill("harvest PEAR");
    await sidebar.locator(`[data-session-id="${apples}"]`).waitFor({ state: "detached" });
    expect(await sidebar.locator(".sidebar-sessions li").count()).toBe(1);
    expect(await sidebar.locator(`[data-session-id="${pears}"]`).count()).toBe(1);
    await sidebar.getByLabel("Search sessions").fill("no such session anywhere");
    await sidebar.getByText("No session matches.").waitFor();
    await sidebar.getByLabel("Search sessions").fill("");
    await sidebar.locator(`[data-session-id="${apples}"]`).waitFor();
  });

  it("answers another session's approval from the inbox, and that turn goes on", async () => {
    const elsewhere = await app.createSession();
    const asking = await app.createSession({ name: "asks first", approval_policy: { default: "ask" } });
    provider.queue(
      toolCalls([
        { name: "write_file", args: { path: "inbox.txt", content: "from the inbox\n" }, id: "call_inbox" },
      ]),
      text("written after the inbox said yes"),
    );
    await page.goto(`${base()}/#/sessions/${elsewhere}`);
    await page.getByTestId("status").waitFor();
    await app.prompt(asking, "write inbox.txt, asking first");
    const card = page.locator(
      `[data-testid="approvals-inbox"] [data-session-id="${asking}"] [data-call-id="call_inbox"]`,
    );
    await card.waitFor();
    await screenshot(page, "approvals-inbox");
    expect(existsSync(join(app.workspace, "inbox.txt"))).toBe(false);
    await card.getByRole("button", { name: "Allow" }).click();
    await app.idle(asking);
    expect(readFileSync(join(app.workspace, "inbox.txt"), "utf8")).toBe("from the inbox\n");
    await page.getByTestId("approvals-inbox").waitFor({ state: "detached" });
    const answers = (await app.history(asking)).items.filter((entry) => entry.kind === "assistant");
    expect(answers.map((entry) => JSON.stringify(entry.content))).toEqual([
      expect.stringContaining("written after the inbox said yes"),
    ]);
  }, 60_000);
});
