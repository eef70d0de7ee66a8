/**
 * Daemon bench part `slowcommit`: does streaming to a watcher keep up while every durable
 * commit is slow? Busy sessions run short turns, 50 ms apart (so the daemon commits all the
 * time) while one other session streams deltas paced at one per millisecond to a watcher; the
 * figure is that watcher's delivery delay (provider write → watcher parse).
 *
 * The daemon's test-only settings make commits slow: `SKEIN_TEST_COMMIT_DELAY_MS` (each durable
 * commit waits that long off the main thread, as a slow disk would) and, for the baseline,
 * `SKEIN_TEST_COMMIT_DELAY_BLOCKING=1` (the same wait blocks the main thread, as commits did
 * before storage left it). A daemon that does not know them ignores them: the figures then all
 * show the no-delay case, which the busy turns per second make visible. Workspace checkpoints
 * are off (SKEIN_CHECKPOINTS=0): spawning git blocks the main thread by itself.
 */
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { deliver, deltas, text } from "../test/support/fake-provider/reply.js";
import type { FakeProvider } from "../test/support/fake-provider/server.js";
import { daemonEnv, follow, now, profiles, sendInput, stamp, watch } from "./daemon-support.js";
import { type Figure, figure, quantile } from "./report.js";

/** Pause of each busy session between its turns (ms). */
const busyPauseMs = 50;

/** The word in the streaming session's prompt that makes the fake provider stream. */
const streamMark = "stream-paced-deltas";

/** One run's outcome. */
interface SlowCommitRun {
  /** Delivery delays of the paced deltas, ascending (ms). */
  delays: number[];
  /** Turns the busy sessions completed per second while the deltas streamed. */
  busyTurnsPerSecond: number;
}

/** The figures of the part: commit delay `delayMs`, `busy` busy sessions, `count` paced deltas. */
export async function slowCommitFigures(
  provider: FakeProvider,
  busy: number,
  count: number,
  delayMs = 20,
): Promise<Figure[]> {
  const delay = String(delayMs);
  const offThread = await slowCommitRun(provider, busy, count, { SKEIN_TEST_COMMIT_DELAY_MS: delay });
  const blocking = await slowCommitRun(provider, busy, count, {
    SKEIN_TEST_COMMIT_DELAY_MS: delay,
    SKEIN_TEST_COMMIT_DELAY_BLOCKING: "1",
  });
  const none = await slowCommitRun(provider, busy, count, {});
  const p = (run: SlowCommitRun, q: number) => quantile(run.delays, q);
  const rates = `busy turns/s: off-thread ${offThread.busyTurnsPerSecond.toFixed(1)}, blocking ${blocking.busyTurnsPerSecond.toFixed(1)}, no delay ${none.busyTurnsPerSecond.toFixed(1)}`;
  const setup = `${busy} sessions run short turns (${busyPauseMs} ms apart) while another streams ${count} deltas at 1/ms to a watcher, every commit delayed ${delayMs} ms (SKEIN_TEST_COMMIT_DELAY_MS), no workspace checkpoints; deltas merged per 16 ms frame`;
  return [
    figure(
      "slow_commit_delivery_p99_ms",
      p(offThread, 0.99),
      "ms",
      p(blocking, 0.99),
      `${setup}; provider write → watcher parse; baseline: the same with SKEIN_TEST_COMMIT_DELAY_BLOCKING=1 (the wait blocks the main thread); no delay at all: p99 ${p(none, 0.99).toFixed(2)} ms; ${rates}; target < 20 ms`,
    ),
    figure(
      "slow_commit_delivery_p50_ms",
      p(offThread, 0.5),
      "ms",
      p(blocking, 0.5),
      `the same at p50 (no delay at all: ${p(none, 0.5).toFixed(2)} ms)`,
    ),
    figure(
      "slow_commit_delivery_p99_ms_vs_no_delay",
      p(offThread, 0.99),
      "ms",
      p(none, 0.99),
      "slow_commit_delivery_p99_ms again, against the same load with no commit delay at all",
    ),
  ];
}

async function slowCommitRun(
  provider: FakeProvider,
  busy: number,
  count: number,
  env: Record<string, string>,
): Promise<SlowCommitRun> {
  provider.script = (request) =>
    request.rawBody.includes(streamMark) ? deliver(deltas(count, stamp), { delayMs: 1 }) : text(["ok"]);
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    // Without workspace checkpoints: their git spawns block the main thread on their own and
    // would hide what commits do.
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn", SKEIN_CHECKPOINTS: "0", ...env }),
  });
  let running = true;
  let loops: Promise<void>[] = [];
  try {
    const sessions = await Promise.all(Array.from({ length: busy }, () => app.createSession()));
    const streaming = await app.createSession();
    const followers = await Promise.all(sessions.map((id) => follow(app, id)));
    const delays: number[] = [];
    const watcher = await watch(app, streaming, delays);
    let turns = 0;
    loops = sessions.map(async (id, i) => {
      const follower = followers[i]!;
      for (let n = 0; running; n++) {
        const seen = follower.nextTurn();
        await sendInput(app, id, `busy ${n}`);
        await seen;
        turns += 1;
        // Paced, so the busy sessions commit all the time without taking every cycle of the
        // CPU (a saturated CPU delays delivery whatever the commits do).
        await new Promise((resolve) => setTimeout(resolve, busyPauseMs));
      }
    });
    // Let the busy sessions reach a steady pace before the deltas start.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const turnsBefore = turns;
    const start = now();
    await sendInput(app, streaming, streamMark);
    await watcher.done;
    const seconds = (now() - start) / 1000;
    const busyTurns = turns - turnsBefore;
    running = false;
    await Promise.all(loops);
    watcher.close();
    for (const follower of followers) follower.close();
    delays.sort((a, b) => a - b);
    return { delays, busyTurnsPerSecond: busyTurns / seconds };
  } finally {
    // On an error above, the busy loops still send into the closing daemon: their rejections
    // must not hide that error as unhandled ones.
    running = false;
    for (const loop of loops) loop.catch(() => undefined);
    await app.close();
  }
}
