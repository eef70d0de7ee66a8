/**
 * The web UI in Debian's Chromium (playwright-core) against a real daemon and the fake
 * provider: log in with a `skein web` link (once only); create a session and send a prompt; see
 * streamed text, a tool call and its result; SIGKILL the daemon mid-stream and restart it (the
 * page says "reconnecting…", resumes, and ends with exactly the history route's entries);
 * an actor restart mid-stream; a waiting edit shown as a diff and answered with Allow and Deny; interrupt; fork;
 * a refused turn repaired from the form under its error; a request without cookie or token is refused; another page's form posts
 * are refused; the schedules page lists the daemon's schedules, every one past a page of
 * `GET /schedules`. Screenshots of the main pages go to test-output/web/.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxSchedulePageSize } from "../../src/api/schedule-page-size.js";
import { createSchedules, listingOrder } from "../e2e/support/bulk-schedules.js";
import { DaemonHarness, type HistoryEntry } from "../e2e/support/daemon-harness.js";
import { entryText, profileFor } from "../e2e/support/fixture.js";
import { httpError, text, toolCalls } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { launchChromium, loginLink, openLoginLink, screenshot } from "./support/browser.js";

const slow = (words: number, delayMs: number) =>
  text(
    Array.from({ length: words }, (_, index) => `word${index} `),
    { delivery: { delayMs } },
  );

describe("the web UI in Chromium", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let firstSession = "";

  const base = () => `http://127.0.0.1:${app.port}`;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    app = await DaemonHarness.start({ providers: profileFor(provider), env: { SKEIN_INSPECT: "1" } });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    page = await context.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await provider?.close();
  });

  /** Every history entry of a session, through the history route (all pages). */
  async function historyOf(sessionId: string): Promise<HistoryEntry[]> {
    const entries: HistoryEntry[] = [];
    let page = await app.history(sessionId, "limit=200&after=0");
    entries.push(...page.items);
    while (page.newer !== null) {
      page = await app.history(sessionId, `limit=200&next=${encodeURIComponent(page.newer)}`);
      entries.push(...page.items);
    }
    return entries;
  }

  /** The entry ids the page shows, sorted. */
  async function shownIds(): Promise<string[]> {
    const ids = await page
      .locator("[data-entry-id]")
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-entry-id") ?? ""));
    return ids.sort();
  }

  async function waitIdle(): Promise<void> {
    await page.locator('[data-testid="status"]', { hasText: "idle" }).waitFor();
  }

  async function send(prompt: string): Promise<void> {
    await page.getByLabel("Message").fill(prompt);
    await page.getByRole("button", { name: "Send" }).click();
  }

  it("logs in with the link from `skein web`, which works only once", async () => {
    const link = loginLink(app.home, app.root);
    await openLoginLink(page, link);
    expect(page.url()).toBe(`${base()}/`);
    await page.getByTestId("session-list").waitFor();
    await screenshot(page, "sessions-empty");

    const other = await browser.newContext();
    const spent = await other.newPage();
    await spent.goto(link);
    await spent.getByText("This login link does not work").waitFor();
    expect(await other.cookies()).toEqual([]);
    await other.close();
  });

  it("refuses a request without cookie or token, and shows the signed-out page", async () => {
    const stranger = await browser.newContext();
    const tab = await stranger.newPage();
    expect((await tab.goto(`${base()}/sessions`))?.status()).toBe(401);
    await tab.goto(`${base()}/`);
    await tab.getByTestId("signed-out").waitFor();
    const status = await tab.evaluate(async () => (await fetch("/sessions")).status);
    expect(status).toBe(401);
    await screenshot(tab, "signed-out");
    await stranger.close();
  });

  it("creates a session, sends a prompt, and shows streamed text, a tool call and its result", async () => {
    provider.queue(
      toolCalls([
        { name: "write_file", args: { path: "hello.txt", content: "hello\nworld\n" }, id: "call_web_1" },
      ]),
      slow(60, 25),
    );
    await page.locator('input[name="workspace"]').fill(app.workspace);
    await page.locator('textarea[name="prompt"]').fill("write hello.txt, then **explain**");
    await page.getByRole("button", { name: "Create" }).click();
    await page.waitForURL(/#\/sessions\/[0-9a-f-]{36}$/);
    firstSession = page.url().split("/").pop()!;

    await page.getByTestId("tool-call").filter({ hasText: "write_file" }).waitFor();
    await page.getByTestId("tool-result").first().waitFor({ state: "attached" });
    // Text shows while it streams (a draft), then as the committed entry.
    const draft = page.getByTestId("draft");
    await draft.filter({ hasText: "word3" }).waitFor();
    expect(await draft.textContent()).not.toContain("word59");
    await page.locator('[data-kind="assistant"]', { hasText: "word59" }).waitFor();
    await waitIdle();
    expect(await draft.count()).toBe(0);
    await expect(page.locator(".diff-add").first().textContent()).resolves.toContain("hello");
    await screenshot(page, "session-tool-call");

    const history = await historyOf(firstSession);
    expect(history.map((entry) => entry.kind)).toEqual(["user", "tool_call", "tool_result", "assistant"]);
    expect(await shownIds()).toEqual(history.map((entry) => entry.id).sort());
  });

  it("resumes after the daemon is SIGKILLed mid-stream and restarted, and ends with exactly the history route's entries", async () => {
    provider.queue(slow(400, 25));
    provider.script = () => text("Recovered after the restart.");
    await send("a long answer, please");
    await page.getByTestId("draft").filter({ hasText: "word20" }).waitFor();
    await app.kill();
    await page.getByTestId("connection").filter({ hasText: "reconnecting…" }).waitFor();
    await screenshot(page, "session-reconnecting");
    await app.boot();

    await page.locator('[data-kind="assistant"]', { hasText: "Recovered after the restart." }).waitFor({
      timeout: 30_000,
    });
    await waitIdle();
    await page.getByTestId("notice").filter({ hasText: "Reconnected" }).waitFor();
    expect(await page.getByTestId("connection").count()).toBe(0);
    expect(await page.getByTestId("draft").count()).toBe(0);

    const history = await historyOf(firstSession);
    expect(history.some((entry) => entry.kind === "note")).toBe(true);
    expect(await shownIds()).toEqual(history.map((entry) => entry.id).sort());
    const shownAnswers = await page.locator('[data-kind="assistant"]').allTextContents();
    expect(shownAnswers.map((shown) => shown.replace(/^Agent\s*(fork here)?/, "").trim())).toEqual(
      history.filter((entry) => entry.kind === "assistant").map((entry) => entryText(entry).trim()),
    );
  }, 60_000);

  it("shows the newest history first and pages older entries in as the reader scrolls up", async () => {
    const long = await app.createSession();
    for (let turn = 0; turn < 14; turn++) {
      for (let round = 0; round < 4; round++) {
        provider.queue(toolCalls([{ name: "list_files", args: { path: "." }, id: `call_${turn}_${round}` }]));
      }
      provider.queue(text(`answer ${turn}`));
      await app.turn(long, `turn ${turn}`);
    }
    const history = await historyOf(long);
    expect(history).toHaveLength(140);
    await page.goto(`${base()}/#/sessions/${long}`);
    await page.locator('[data-kind="assistant"]', { hasText: "answer 13" }).waitFor();
    const transcript = page.getByTestId("transcript");
    const first = await shownIds();
    expect(first.length).toBeLessThan(history.length);
    expect(await transcript.evaluate((node) => node.scrollHeight > node.clientHeight)).toBe(true);
    for (let step = 0; step < 20 && (await shownIds()).length < history.length; step++) {
      await transcript.evaluate((node) => {
        node.scrollTop = 0;
      });
      await page.waitForTimeout(100);
    }
    await page.getByText("the beginning of the session").waitFor();
    expect(await shownIds()).toEqual(history.map((entry) => entry.id).sort());
    await page.goto(`${base()}/#/sessions/${firstSession}`);
    await page.getByTestId("status").waitFor();
  }, 60_000);

  it("follows the session through an actor restart mid-stream, and ends with exactly the history route's entries", async () => {
    provider.queue(slow(400, 25), text("the second answer, once the actor was back"));
    await send("a turn the actor restart cuts");
    await page.getByTestId("draft").filter({ hasText: "word10" }).waitFor();
    const restarted = await app.api(`/debug/sessions/${firstSession}/restart`, { method: "POST" });
    expect(restarted.json()).toEqual({ result: "actor_stopped" });
    await waitIdle();
    expect(await page.getByTestId("draft").count()).toBe(0);

    await send("and after it?");
    // A text of its own: an earlier test's answer says "Recovered after the restart.", and a
    // wait that matched it went on before this turn had even started.
    await page.locator('[data-kind="assistant"]', { hasText: "the second answer" }).waitFor();
    await waitIdle();
    const history = await historyOf(firstSession);
    expect(await shownIds()).toEqual(history.map((entry) => entry.id).sort());
  }, 60_000);

  it("interrupts a running turn", async () => {
    provider.queue(slow(400, 25));
    await send("another long answer");
    await page.getByTestId("draft").filter({ hasText: "word5" }).waitFor();
    await page.getByRole("button", { name: "Interrupt" }).click();
    await page.getByTestId("notice").filter({ hasText: "interrupted" }).waitFor();
    await waitIdle();
    expect(await page.getByTestId("draft").count()).toBe(0);
    const history = await historyOf(firstSession);
    expect(history.filter((entry) => entryText(entry).includes("word399"))).toEqual([]);
  });

  it("forks at an entry: the fork opens with the history up to it, linked to its source", async () => {
    const source = await historyOf(firstSession);
    const checkpoint = source.find((entry) => entry.kind === "assistant")!;
    await page
      .locator(`[data-entry-id="${checkpoint.id}"]`)
      .getByRole("button", { name: "fork here" })
      .click();
    await page.waitForURL((url) => !url.hash.endsWith(firstSession));
    const forkId = page.url().split("/").pop()!;
    await page.getByTestId("parent").waitFor();
    await page.locator(`[data-entry-id="${checkpoint.id}"]`).waitFor();
    const forked = await historyOf(forkId);
    expect(forked.map((entry) => entry.id)).toEqual(
      source.filter((entry) => entry.position <= checkpoint.position).map((entry) => entry.id),
    );
    expect(await shownIds()).toEqual(forked.map((entry) => entry.id).sort());

    await page.goto(`${base()}/#/`);
    await page.locator(`tr[data-session-id="${forkId}"] .fork-mark`).waitFor();
    await screenshot(page, "sessions-fork-tree");
  });

  it("shows a waiting edit as a diff, runs it once on Allow, and gives the model the message of a Deny", async () => {
    const asking = await app.createSession({ approval_policy: { default: "ask" } });
    provider.queue(
      toolCalls([{ name: "write_file", args: { path: "approved.txt", content: "yes\n" }, id: "call_allow" }]),
      toolCalls([{ name: "write_file", args: { path: "refused.txt", content: "no\n" }, id: "call_deny" }]),
      text("done asking"),
    );
    await page.goto(`${base()}/#/sessions/${asking}`);
    await page.getByTestId("status").waitFor();
    await send("write two files, asking first");

    const first = page.locator('[data-testid="approvals"] [data-call-id="call_allow"]');
    await first.waitFor();
    expect(await first.locator(".diff-add").first().textContent()).toContain("yes");
    await screenshot(page, "session-approval");
    expect(existsSync(join(app.workspace, "approved.txt"))).toBe(false);
    await first.getByRole("button", { name: "Allow" }).click();

    const second = page.locator('[data-testid="approvals"] [data-call-id="call_deny"]');
    await second.waitFor();
    expect(readFileSync(join(app.workspace, "approved.txt"), "utf8")).toBe("yes\n");
    await second.locator("textarea").fill("not this one, thanks");
    await second.getByRole("button", { name: "Deny" }).click();

    await page.locator('[data-kind="assistant"]', { hasText: "done asking" }).waitFor();
    await waitIdle();
    expect(await page.getByTestId("approvals").count()).toBe(0);
    expect(existsSync(join(app.workspace, "refused.txt"))).toBe(false);
    const history = await historyOf(asking);
    const results = history
      .filter((entry) => entry.kind === "tool_result")
      .map((entry) => JSON.stringify(entry.content.find((part) => part.field === "result")?.value));
    expect(results).toHaveLength(2);
    expect(results[1]).toContain("not this one, thanks");
    expect(await shownIds()).toEqual(history.map((entry) => entry.id).sort());
  });

  it("switches the approval mode from the session page, and a write then runs without asking", async () => {
    const sessionId = await app.createSession();
    await page.goto(`${base()}/#/sessions/${sessionId}`);
    const select = page.getByTestId("approval-mode");
    await select.waitFor();
    expect(await select.inputValue()).toBe("ask");
    await select.selectOption("auto-edit");
    await expect
      .poll(
        async () =>
          (await app.api(`/sessions/${sessionId}?tail=0`)).json<{ approval_mode: string }>().approval_mode,
      )
      .toBe("auto-edit");
    provider.queue(
      toolCalls([
        { name: "write_file", args: { path: "auto-edit.txt", content: "edited\n" }, id: "call_auto" },
      ]),
      text("edited without asking"),
    );
    await send("write a file in auto-edit mode");
    await page.locator('[data-kind="assistant"]', { hasText: "edited without asking" }).waitFor();
    expect(readFileSync(join(app.workspace, "auto-edit.txt"), "utf8")).toBe("edited\n");
    expect(await page.getByTestId("approvals").count()).toBe(0);
    expect(await select.inputValue()).toBe("auto-edit");
  });

  it("offers a repair under a turn the provider refused, and the next turn goes through", async () => {
    const refusing = await app.createSession();
    const previous = provider.script;
    // A server whose content filter refuses any request that holds the word.
    provider.script = (request) =>
      request.rawBody.includes("POISON")
        ? httpError(400, { message: "prohibited content" })
        : text("fine again");
    try {
      await page.goto(`${base()}/#/sessions/${refusing}`);
      await page.getByTestId("status").waitFor();
      await send("POISON");
      const form = page.getByTestId("repair-form");
      await form.waitFor();
      await waitIdle();
      expect(await page.getByTestId("turn-error").textContent()).toContain("provider_refused");
      const poisoned = (await historyOf(refusing)).find((entry) => entry.kind === "user")!;
      // It starts at the newest message of the person's, here the refused one.
      expect(await form.getByLabel("Leave out from").inputValue()).toBe(String(poisoned.position));
      await screenshot(page, "session-repair");
      await form.getByRole("button", { name: "Leave out" }).click();
      await page.locator('[data-kind="context_excluded"]').waitFor();
      await send("hello");
      await page.locator('[data-kind="assistant"]', { hasText: "fine again" }).waitFor();
      await waitIdle();
      expect(provider.lastRequest.rawBody).not.toContain("POISON");
      const history = await historyOf(refusing);
      expect(history.find((entry) => entry.kind === "context_excluded")).toMatchObject({
        excluded: { from_position: poisoned.position, to_position: poisoned.position, reason: "repair" },
      });
      expect(await shownIds()).toEqual(history.map((entry) => entry.id).sort());
    } finally {
      provider.script = previous;
    }
  });

  it("refuses another page's form posts, cross-site and same-site, even with the cookie", async () => {
    const daemonOrigin = base();
    const evil: Server = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(
        `<form id="f" method="POST" action="${daemonOrigin}/web/logout" enctype="text/plain">` +
          `<input name="x" value="y"></form><script>document.getElementById("f").submit()</script>`,
      );
    });
    await new Promise<void>((done) => evil.listen(0, "127.0.0.1", done));
    const evilPort = (evil.address() as AddressInfo).port;
    try {
      for (const origin of [`http://127.0.0.1:${evilPort}`, `http://localhost:${evilPort}`]) {
        const tab = await context.newPage();
        const refused = tab.waitForResponse(`${daemonOrigin}/web/logout`);
        await tab.goto(`${origin}/`);
        const answer = await refused;
        // Same-site (another port of 127.0.0.1): the cookie comes along and the origin is refused;
        // cross-site (localhost): SameSite=Strict keeps the cookie home.
        expect(answer.status(), origin).toBe(origin.includes("127.0.0.1") ? 403 : 401);
        await tab.close();
      }
    } finally {
      evil.close();
    }
    const still = await page.evaluate(async () => (await fetch("/web/session")).status);
    expect(still).toBe(200);
  });

  it("lists the schedules with timing, time zone, next and last firing, the last turn's state and paused ones", async () => {
    const sessionId = await app.createSession();
    provider.queue(text("fired from the schedule"));
    const at = new Date(Date.now() + 1_000).toISOString();
    const once = { id: "web-once", at, session_id: sessionId, prompt: "scheduled hello", missed: "run_once" };
    expect((await app.api("/schedules", { method: "POST", body: once })).status).toBe(201);
    const nightly = {
      id: "web-nightly",
      cron: "0 7 * * *",
      timezone: "Europe/Berlin",
      session_id: sessionId,
      prompt: "p",
      missed: "skip",
    };
    expect((await app.api("/schedules", { method: "POST", body: nightly })).status).toBe(201);
    expect(
      (await app.api("/schedules/web-nightly", { method: "PATCH", body: { paused: true } })).status,
    ).toBe(200);
    const deadline = Date.now() + 15_000;
    while (
      (await app.api("/schedules/web-once")).json<{ last_turn: { state: string } | null }>().last_turn
        ?.state !== "completed"
    ) {
      if (Date.now() > deadline) throw new Error("the one-shot schedule's turn did not complete");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const errors: string[] = [];
    page.on("console", (message) => void (message.type() === "error" && errors.push(message.text())));
    await page.goto(`${base()}/#/schedules`);
    const fired = page.locator('[data-schedule="web-once"]');
    await fired.locator('[data-field="outcome"]', { hasText: "completed" }).waitFor();
    expect(await fired.locator('[data-field="next"]').textContent()).toBe("none");
    expect(await fired.locator('[data-field="last"]').textContent()).not.toBe("none");
    const paused = page.locator('[data-schedule="web-nightly"]');
    expect(await paused.textContent()).toContain("0 7 * * * (Europe/Berlin)");
    expect(await paused.locator('[data-field="next"]').textContent()).toBe("paused");
    expect(await paused.locator('[data-field="outcome"]').textContent()).toBe("—");
    await screenshot(page, "schedules");
    expect(errors).toEqual([]);
  });

  it("lists every schedule on the schedules page, past one page of GET /schedules", async () => {
    const created = await createSchedules(app, "web-many", maxSchedulePageSize + 2);
    await page.goto(`${base()}/#/schedules`);
    await page.reload();
    const rows = page.locator("[data-schedule]");
    await page.locator(`[data-schedule="${listingOrder(created).at(-1)}"]`).waitFor();
    const shown = await rows.evaluateAll((found) => found.map((row) => row.getAttribute("data-schedule")));
    expect(shown.filter((id) => id?.startsWith("web-many-"))).toEqual(listingOrder(created));
    expect(new Set(shown).size).toBe(shown.length);
  });

  it("signs out", async () => {
    await page.getByTestId("logout").click();
    await page.getByTestId("signed-out").waitFor();
    const status = await page.evaluate(async () => (await fetch("/sessions")).status);
    expect(status).toBe(401);
  });
});
