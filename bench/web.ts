/**
 * Web UI benchmark, in Debian's Chromium (playwright-core) against a real daemon:
 * - `page_load_2000_entries_ms`: navigation start to the transcript first in the DOM (the page's
 *   own User Timing mark) for a session of 2,000 history entries (the snapshot brings the newest
 *   100), against the same for a session of 4 entries (median of 10 fresh loads each);
 *   `scroll_back_to_start_ms`: then scrolling up until all 2,000 are paged in.
 * - `browser_delivery_p50_ms` / `_p99_ms`: for one streamed turn (200 text deltas, 20 ms apart),
 *   the time from the provider writing a delta to the page showing it, against `skein attach`
 *   printing it, both watching the same turn. Each delta carries the time it is written (the
 *   provider's pacing included), and both sides compare it with their arrival time on the same
 *   clock.
 */
import { spawn } from "node:child_process";
import { DaemonHarness, skeinBin } from "../test/e2e/support/daemon-harness.js";
import { profileFor } from "../test/e2e/support/fixture.js";
import { deltas, text, toolCalls } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { launchChromium, loginLink, openLoginLink } from "../test/web/support/browser.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";

const LOADS = 10;
const DELTAS = 200;
const PACE_MS = 20;
const TURNS = 200;

const renderedMark = "skein:transcript-rendered";

/** Runs in the page: records, for each `<time>` marker the first time a draft shows it, how late it is. */
const recordDelaysScript = `
  window.__delays = [];
  const seen = new Set();
  new MutationObserver(() => {
    const now = Date.now();
    for (const draft of document.querySelectorAll('[data-testid="draft"]')) {
      for (const match of (draft.textContent ?? "").matchAll(/<(\\d+)>/g)) {
        if (seen.has(match[1])) continue;
        seen.add(match[1]);
        window.__delays.push(now - Number(match[1]));
      }
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
`;

/** Run the suite and write bench/results/web.json. */
export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  const app = await DaemonHarness.start({ providers: profileFor(provider) });
  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    await openLoginLink(page, loginLink(app.home, app.root));

    // 200 turns of a prompt, 4 tool rounds (a call and its result each) and an answer: 2,000 entries.
    const large = await app.createSession();
    for (let turn = 0; turn < TURNS; turn++) {
      for (let round = 0; round < 4; round++) {
        provider.queue(toolCalls([{ name: "list_files", args: { path: "." }, id: `call_${turn}_${round}` }]));
      }
      provider.queue(text(`answer ${turn}`));
      await app.turn(large, `turn ${turn}`);
    }
    let entries = 0;
    for (let page = await app.history(large, "limit=200&after=0"); ; ) {
      entries += page.items.length;
      if (page.newer === null) break;
      page = await app.history(large, `limit=200&next=${encodeURIComponent(page.newer)}`);
    }
    const small = await app.createSession();
    provider.queue(
      toolCalls([{ name: "list_files", args: { path: "." }, id: "call_small" }]),
      text("answer"),
    );
    await app.turn(small, "hello");

    const loadTimes = async (sessionId: string): Promise<number[]> => {
      const samples: number[] = [];
      for (let load = 0; load < LOADS + 1; load++) {
        await page.goto("about:blank");
        await page.goto(`http://127.0.0.1:${app.port}/#/sessions/${sessionId}`);
        await page.waitForFunction((mark) => performance.getEntriesByName(mark).length > 0, renderedMark);
        const ms = await page.evaluate(
          (mark) => performance.getEntriesByName(mark)[0]!.startTime,
          renderedMark,
        );
        if (load > 0) samples.push(ms);
      }
      return samples.sort((a, b) => a - b);
    };
    const largeLoads = await loadTimes(large);
    const shown = (await page.evaluate('document.querySelectorAll("[data-entry-id]").length')) as number;
    // Then scroll up until the whole session is paged in.
    const transcript = page.getByTestId("transcript");
    const scrollStarted = performance.now();
    while ((await page.getByText("the beginning of the session").count()) === 0) {
      await transcript.evaluate((node) => {
        node.scrollTop = 0;
      });
      await page.waitForTimeout(10);
    }
    const scrollBackMs = performance.now() - scrollStarted;
    const allShown = (await page.evaluate('document.querySelectorAll("[data-entry-id]").length')) as number;
    const smallLoads = await loadTimes(small);

    // One streamed turn watched by the page and by `skein attach` at once.
    const watched = await app.createSession();
    await page.goto(`http://127.0.0.1:${app.port}/#/sessions/${watched}`);
    await page.getByTestId("status").waitFor();
    await page.evaluate(recordDelaysScript);
    const cliDelays: number[] = [];
    const attach = spawn(process.execPath, [skeinBin, "attach", watched], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: app.root, SKEIN_HOME: app.home, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    const cliSeen = new Set<string>();
    let cliText = "";
    attach.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      const now = Date.now();
      cliText += chunk;
      for (const match of cliText.matchAll(/<(\d+)>/g)) {
        if (cliSeen.has(match[1]!)) continue;
        cliSeen.add(match[1]!);
        cliDelays.push(now - Number(match[1]));
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    provider.queue(
      deltas(DELTAS, (index) => `<${Date.now() + (index > 0 ? PACE_MS : 0)}> `, {
        delivery: { delayMs: PACE_MS },
      }),
    );
    await app.turn(watched, "stream");
    await new Promise((resolve) => setTimeout(resolve, 500));
    attach.kill("SIGINT");
    const browserDelays = ((await page.evaluate("window.__delays")) as number[]).sort((a, b) => a - b);
    cliDelays.sort((a, b) => a - b);

    const figures: Figure[] = [
      figure(
        "page_load_2000_entries_ms",
        quantile(largeLoads, 0.5),
        "ms",
        quantile(smallLoads, 0.5),
        `median of ${LOADS} loads, navigation start to the transcript in the DOM; a session of ${entries} entries ` +
          `(the snapshot's newest 100: ${shown} entry elements); baseline: a 4-entry session; ` +
          `p90 ${quantile(largeLoads, 0.9).toFixed(1)} vs ${quantile(smallLoads, 0.9).toFixed(1)} ms`,
      ),
      figure(
        "scroll_back_to_start_ms",
        scrollBackMs,
        "ms",
        null,
        `scrolling to the top until all ${allShown} entries are paged in (pages of 100 positions)`,
      ),
      figure(
        "browser_delivery_p50_ms",
        quantile(browserDelays, 0.5),
        "ms",
        quantile(cliDelays, 0.5),
        `${DELTAS} deltas ${PACE_MS} ms apart, provider write to the page's DOM (${browserDelays.length} seen); baseline: ` +
          `skein attach printing it (${cliDelays.length} seen)`,
      ),
      figure(
        "browser_delivery_p99_ms",
        quantile(browserDelays, 0.99),
        "ms",
        quantile(cliDelays, 0.99),
        "same samples; baseline: skein attach",
      ),
    ];
    writeReport("web", figures);
  } finally {
    await browser.close();
    await app.close();
    await provider.close();
  }
}
