/**
 * Chat benchmark, through a real terminal (tmux):
 * - `chat_startup_ms`: from spawning `skein chat` to an editable prompt on screen (a new
 *   session; daemon already running), against a Node process that prints the prompt at once
 *   (the cost of Node, tmux and the screen polling themselves).
 * - `chat_keystroke_echo_p99_ms`: from a key sent to the terminal to its echo at the prompt,
 *   while a turn streams 1,000 deltas a second, against the same at an idle prompt.
 * The screen is polled (visible part only), so figures include up to a few ms of polling.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { TmuxPane } from "../test/cli/support/tmux-pane.js";
import { DaemonHarness, skeinBin } from "../test/e2e/support/daemon-harness.js";
import { deliver, deltas, text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { figure, quantile, writeReport } from "./report.js";

const STARTS = 15;
const KEYS = 200;

/** The visible screen (not the scrollback: that grows while the answer streams). */
function screen(pane: TmuxPane): string {
  return pane.captureVisible();
}

async function until(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await sleep(1);
  }
}

function promptShown(pane: TmuxPane): boolean {
  return screen(pane)
    .trimEnd()
    .split("\n")
    .some((line) => line === "›" || line === "› ");
}

/** Milliseconds from each key to its echo on the prompt line (the line starts "› "). */
async function echoLatencies(pane: TmuxPane, keys: number): Promise<number[]> {
  const times: number[] = [];
  let typed = "";
  for (let i = 0; i < keys; i++) {
    typed += "k";
    const expected = `› ${typed}`;
    const started = process.hrtime.bigint();
    pane.type("k");
    await until(() =>
      screen(pane)
        .split("\n")
        .some((line) => line.trimEnd() === expected),
    );
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (typed.length >= 40) {
      pane.press("C-u");
      typed = "";
      await until(() =>
        screen(pane)
          .split("\n")
          .some((line) => line.trimEnd() === "›"),
      );
    }
  }
  return times.sort((a, b) => a - b);
}

/** Run the suite and write bench/results/chat.json. */
export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  provider.script = () => text("hello");
  const daemon = await DaemonHarness.start({
    providers: {
      fake: {
        protocol: "chat_completions",
        baseUrl: `${provider.baseUrl}/v1`,
        model: "fake-model",
        apiKey: "bench",
      },
    },
  });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: daemon.root,
    SKEIN_HOME: daemon.home,
    SKEIN_NO_AUTOSTART: "1",
    TERM: "screen",
  };
  const start = (command: string[]): TmuxPane =>
    TmuxPane.start(command, { cwd: daemon.workspace, env, width: 120, height: 40 });
  try {
    const startTimes: number[] = [];
    const baseTimes: number[] = [];
    for (let i = 0; i < STARTS + 2; i++) {
      for (const [list, command] of [
        [startTimes, [process.execPath, skeinBin]],
        [baseTimes, [process.execPath, "-e", 'process.stdout.write("› "); setTimeout(() => {}, 60000)']],
      ] as const) {
        const started = process.hrtime.bigint();
        const pane = start([...command]);
        try {
          await until(() => promptShown(pane));
          if (i >= 2) list.push(Number(process.hrtime.bigint() - started) / 1e6);
        } finally {
          pane.close();
        }
      }
    }
    startTimes.sort((a, b) => a - b);
    baseTimes.sort((a, b) => a - b);

    const pane = start([process.execPath, skeinBin]);
    let idle: number[];
    let streaming: number[];
    let deltasSent = 0;
    let streamMs = 0;
    let rate = 0;
    try {
      await until(() => promptShown(pane));
      idle = await echoLatencies(pane, KEYS);
      pane.press("C-u");
      deltasSent = 20_000;
      // 1,000 deltas a second, a newline every 40 so the screen scrolls.
      provider.script = () =>
        deliver(
          deltas(deltasSent, (i) => (i % 40 === 39 ? "x\n" : "x ")),
          { eventsPerSecond: 1000 },
        );
      pane.type("stream");
      const sentAt = Date.now();
      pane.press("Enter");
      await until(() => screen(pane).includes("x x x x"));
      const began = Date.now();
      streaming = await echoLatencies(pane, KEYS);
      streamMs = Date.now() - began;
      const stillStreaming = !screen(pane).includes("── fake-model");
      if (!stillStreaming)
        throw new Error("the turn ended before the keystrokes were measured; raise the count");
      // The rate the provider really sent at (timers may make 1 ms a little longer).
      await provider.requests.at(-1)?.closed;
      rate = deltasSent / ((Date.now() - sentAt) / 1000);
    } finally {
      pane.close();
    }
    const p99 = quantile(streaming, 0.99);
    const idle99 = quantile(idle, 0.99);
    writeReport("chat", [
      figure(
        "chat_startup_ms",
        quantile(startTimes, 0.5),
        "ms",
        quantile(baseTimes, 0.5),
        `median of ${STARTS} starts of \`skein chat\` (new session, daemon running) until the prompt is on screen in tmux; ` +
          `p90 ${quantile(startTimes, 0.9).toFixed(1)} ms; baseline: node printing the prompt at once, p50 ${quantile(baseTimes, 0.5).toFixed(1)} ms`,
      ),
      figure(
        "chat_keystroke_echo_p99_ms",
        p99,
        "ms",
        idle99,
        `p99 of ${KEYS} keys typed one at a time while a turn streams 1,000 deltas/s (fake provider on a 1 ms schedule; ${deltasSent} deltas at ${Math.round(rate)}/s measured), ` +
          `measured over ${(streamMs / 1000).toFixed(1)} s; p50 ${quantile(streaming, 0.5).toFixed(1)} ms; ` +
          `baseline: the same at an idle prompt, p99 ${idle99.toFixed(1)} ms, p50 ${quantile(idle, 0.5).toFixed(1)} ms; includes tmux and polling`,
      ),
    ]);
  } finally {
    await daemon.close();
    await provider.close();
  }
}
