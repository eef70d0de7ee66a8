/**
 * Subagents in the web UI, in Debian's Chromium against a real daemon and the fake provider: a
 * parent's `task` call shows inline as a task block (agent, prompt, state, link) while its child
 * works, "waiting for approval" while the child's write waits; the link follows the child live
 * (its approval answered there, its answer streams, its header names the parent);
 * back on the parent, the block says how the task ended with the child's tokens, the header
 * counts the agents' tokens and cost, and the sidebar and the sessions page show the child under its
 * parent, marked with its agent — all without a Content-Security-Policy error. A child's
 * waiting call can also be answered in its task block on the parent's page.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";
import { profileFor } from "../e2e/support/fixture.js";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { launchChromium, loginLink, openLoginLink, screenshot } from "./support/browser.js";

/** The parent (its requests carry its prompt) delegates once; the built-in agent writes (asked), then answers slowly. */
function delegating(request: RecordedRequest) {
  if (!request.rawBody.includes("PARENT-DELEGATES")) {
    if (!request.rawBody.includes("call_w"))
      return toolCalls([{ name: "write_file", args: { path: "count.txt", content: "3" }, id: "call_w" }]);
    const pieces = Array.from({ length: 16 }, (_, i) => (i === 15 ? " CHILD-ANSWER" : `w${i} `));
    return text(pieces, { delivery: { delayMs: 100 } });
  }
  if (request.rawBody.includes("CHILD-ANSWER")) return text("the parent used the answer");
  return toolCalls([{ name: "task", args: { agent: "general", prompt: "count the files" }, id: "call_t" }]);
}

describe("agents in the web UI, in Chromium", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    provider = await FakeProvider.start();
    provider.script = delegating;
    // The built-in policy: `task` runs, the child's write is asked.
    // Priced (1000 USD per million tokens either way), so the header shows the cost with agents.
    const priced = Object.entries(profileFor(provider)).map(([name, profile]) => [
      name,
      { ...profile, prices: { input: 1000, output: 1000 } },
    ]);
    app = await DaemonHarness.start({
      providers: Object.fromEntries(priced),
      config: { approvalPolicy: undefined },
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    page = await context.newPage();
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    // The login link sets the cookie and lands on the sessions page.
    await openLoginLink(page, loginLink(app.home, app.root));
  }, 60_000);

  afterAll(async () => {
    for (const open of [browser, app, provider]) await open?.close();
  });

  it("shows a task inline with a link that follows its child live, then its end, tokens and the tree", async () => {
    const parent = await app.createSession();
    await page.goto(`http://127.0.0.1:${app.port}/#/sessions/${parent}`);
    await app.prompt(parent, "PARENT-DELEGATES: count them");
    const block = page.getByTestId("task-block");
    await block.getByTestId("task-state").filter({ hasText: "waiting for approval" }).waitFor();
    expect(await block.textContent()).toContain("general");
    expect(await block.textContent()).toContain("count the files");
    const link = block.getByTestId("task-link");
    expect(await link.textContent()).toBe("follow live");
    await screenshot(page, "session-task-running");

    // The child's page: its write is answered there, its answer streams (a draft) and its header names the parent.
    await link.click();
    await page.waitForURL(/#\/sessions\/[0-9a-f-]{36}$/);
    const child = page.url().split("/").pop()!;
    expect(child).not.toBe(parent);
    await page
      .locator('[data-testid="approvals"] [data-call-id="call_w"]')
      .getByRole("button", { name: "Allow" })
      .click();
    await page.getByTestId("draft").filter({ hasText: "w3" }).waitFor();
    expect(await page.getByTestId("parent").textContent()).toBe(
      `agent general, a task of ${parent.slice(0, 13)}`,
    );
    await page.locator('[data-kind="assistant"]', { hasText: "CHILD-ANSWER" }).waitFor();

    await page.getByTestId("parent").click();
    await page.locator('[data-kind="assistant"]', { hasText: "the parent used the answer" }).waitFor();
    await block.getByTestId("task-state").filter({ hasText: "completed" }).waitFor();
    // Idle: the parent's last usage is in (it may follow the answer's entry).
    await page.getByTestId("status").filter({ hasText: "idle" }).waitFor();
    const childTokens = Number((await block.getByTestId("task-tokens").textContent())!.replace(/\D/g, ""));
    expect(childTokens).toBeGreaterThan(0);
    expect(await block.getByTestId("task-link").textContent()).toBe("open its session");
    const own = Number((await page.getByTestId("usage").textContent())!.replace(/\D/g, ""));
    await page
      .getByTestId("usage-total")
      .filter({ hasText: `${(own + childTokens).toLocaleString("en-US")} with agents` })
      .waitFor();
    await page
      .getByTestId("cost-total")
      .filter({ hasText: `$${((own + childTokens) / 1000).toFixed(4)} with agents` })
      .waitFor();
    // The sidebar: the child right under its parent, indented and marked with its agent.
    const rows = page.getByTestId("sidebar").locator("li");
    const ids = await rows.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-session-id")));
    expect(ids.indexOf(child)).toBe(ids.indexOf(parent) + 1);
    const childRow = page.getByTestId("sidebar").locator(`li[data-session-id="${child}"]`);
    expect(await childRow.getAttribute("class")).toContain("depth-1");
    expect(await childRow.textContent()).toContain("↳ general");
    await screenshot(page, "session-task-completed");

    // The sessions page: the child under its parent, the parent's tokens counting the child's.
    await page.goto(`http://127.0.0.1:${app.port}/#/`);
    const childListed = page.locator(`tr[data-session-id="${child}"]`);
    await childListed.waitFor();
    expect(await childListed.textContent()).toContain("agent general");
    const parentTokens = await page
      .locator(`tr[data-session-id="${parent}"] [data-testid="tokens"]`)
      .textContent();
    expect(Number(parentTokens!.replace(/\D/g, ""))).toBe(own + childTokens);
    expect(errors).toEqual([]);
  }, 30_000);

  it("answers a child's waiting call in its task block on the parent's page", async () => {
    const parent = await app.createSession();
    await page.goto(`http://127.0.0.1:${app.port}/#/sessions/${parent}`);
    await app.prompt(parent, "PARENT-DELEGATES: count them again");
    const block = page.getByTestId("task-block");
    const asked = block.locator('[data-testid="approvals"] [data-call-id="call_w"]');
    expect(await asked.textContent({ timeout: 10_000 })).toContain("count.txt");
    await screenshot(page, "session-task-approval");
    // Only the block lists it: the page's own panel is for the parent's calls.
    expect(await page.locator('main [data-testid="approvals"]').count()).toBe(1);
    await asked.getByRole("button", { name: "Allow" }).click();
    await asked.waitFor({ state: "detached" });
    await page.locator('[data-kind="assistant"]', { hasText: "the parent used the answer" }).waitFor();
    await block.getByTestId("task-state").filter({ hasText: "completed" }).waitFor();
    expect(errors).toEqual([]);
  }, 20_000);
});
