/**
 * The login link `skein web` prints, in Debian's Chromium against a real daemon: fetched first
 * as a chat's link previewer does (a GET, no script), it still works; opened, its page submits
 * itself under the daemon's CSP (no console error) and lands signed in on `/`, replaced in the
 * history so Back does not post the spent code again; a second browser opening it gets the page
 * that says it is spent; without scripts its button signs in; a browser signed in already is
 * signed in again by a new link.
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness, rawRequest } from "../e2e/support/daemon-harness.js";
import { launchChromium, loginLink, openLoginLink } from "./support/browser.js";

describe("the login link in Chromium", () => {
  let app: DaemonHarness;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    app = await DaemonHarness.start();
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await app?.close();
  });

  const cookieName = () => `skein_session_${app.port}`;

  /** A fresh browser profile's tab, with every console error and page error it shows. */
  async function tab(
    options: { javaScriptEnabled?: boolean } = {},
  ): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext(options);
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    page.on("pageerror", (error) => errors.push(error.message));
    return { page, errors };
  }

  async function sessionCookie(page: Page): Promise<string | undefined> {
    const cookies = await page.context().cookies();
    return cookies.find((cookie) => cookie.name === cookieName())?.value;
  }

  it("signs in without a click after a link previewer fetched the link, and Back does not post it again", async () => {
    const link = loginLink(app.home, app.root);
    const url = new URL(link);
    // What a chat's link previewer does: GET the link for its title, run no script.
    const previewed = await rawRequest(app.port, {
      method: "GET",
      path: url.pathname + url.search,
      headers: { accept: "text/html", "user-agent": "Slackbot-LinkExpanding 1.0" },
    });
    expect(previewed.status).toBe(200);
    expect(previewed.text).toContain("<title>Sign in to Skein</title>");

    const { page, errors } = await tab();
    await openLoginLink(page, link);
    expect(await sessionCookie(page)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.getByTestId("session-list").waitFor();
    await page.goBack();
    expect(page.url()).not.toContain("/login");
    await page.waitForTimeout(200);
    expect(errors).toEqual([]);

    const other = await tab();
    const again = await other.page.goto(link);
    expect(again?.status()).toBe(200);
    await other.page.getByText("This login link does not work").waitFor();
    expect(await sessionCookie(other.page)).toBeUndefined();
  }, 60_000);

  it("signs in with the page's button where scripts do not run", async () => {
    const { page, errors } = await tab({ javaScriptEnabled: false });
    await page.goto(loginLink(app.home, app.root));
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(await sessionCookie(page)).toBeUndefined();
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    expect(await sessionCookie(page)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(errors).toEqual([]);
  }, 60_000);

  it("signs a browser in again with a new link while its earlier login still holds", async () => {
    const { page, errors } = await tab();
    await openLoginLink(page, loginLink(app.home, app.root));
    const first = await sessionCookie(page);
    await openLoginLink(page, loginLink(app.home, app.root));
    const second = await sessionCookie(page);
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    await page.getByTestId("session-list").waitFor();
    expect(errors).toEqual([]);
  }, 60_000);
});
