/**
 * `tsx bench/profile-daemon.ts <stream|turns|concurrent|oneshot> <dir>`: runs one daemon load under
 * `node --cpu-prof` (the profile is written to <dir> when the daemon exits; `none`: no profile)
 * and prints the daemon's CPU time per unit of work and its resident memory (idle after start,
 * after the work, peak). `bench/profile-summary.ts` prints a
 * profile's top functions. Not a suite of `npm run bench`: a tool for finding where the time goes.
 *
 * Sizes: TURNS (turns, default 300, after WARMUP uncounted ones, default 20; a new session every
 * SESSION_TURNS turns, default one session for all, whose history then grows), SESSIONS (concurrent: that many sessions, one short turn
 * each, all at once, default 1000; oneshot: that many `skein run "hi"` in new sessions, one
 * after the other, default 100, after WARMUP uncounted ones, default 5), WATCHERS (stream: that many SSE watchers of the session,
 * as in the bench's stream figures, default 0; the deltas then carry the bench's stamps). SKEIN_CHECKPOINTS=0 in this process's environment is passed
 * on to the daemon (no workspace checkpoints), to see what they cost, and so is SKEIN_V8_FLAGS
 * (the daemon's V8 flags instead of its defaults; `none`: V8's defaults). It prints the measured
 * phase's window (CLOCK_MONOTONIC µs) for `profile-summary.ts`, so setup is left out.
 * SKEIN_PROFILE_BIN names another checkout's built `bin/skein.js` to profile instead (e.g.
 * main's, for a before/after). PERF_OUT=<file> also records the measured phase with `perf
 * record -g` (CPU-time samples, so time the daemon spent descheduled on a busy machine is not
 * counted, unlike the V8 profile's wall-clock samples; give `dir` none and
 * SKEIN_NODE_FLAGS=--perf-basic-prof for JavaScript names).
 */
import { spawn } from "node:child_process";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { deltas, text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { runOneShot } from "./daemon-oneshot.js";
import {
  cpuMs,
  cpuOf,
  daemonEnv,
  type Follower,
  follow,
  followedTurn,
  now,
  rssMb,
  sendInput,
  stamp,
  type Watcher,
  watch,
} from "./daemon-support.js";

const [mode = "turns", dir = "/tmp/skein-profile"] = process.argv.slice(2);

/** CLOCK_MONOTONIC in µs, the clock of a V8 CPU profile's timestamps. */
const monotonicUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** The measured phase: opened before it, closed after it (prints it, stops `perf`). */
async function openWindow(): Promise<{ close(): Promise<void> }> {
  const out = process.env.PERF_OUT;
  const perf =
    out === undefined
      ? null
      : spawn("perf", ["record", "-F", "1999", "-g", "-p", String(app.pid), "-o", out], { stdio: "ignore" });
  // perf needs a moment to attach before the phase starts.
  if (perf !== null) await new Promise((resolve) => setTimeout(resolve, 500));
  const from = monotonicUs();
  return {
    close: async () => {
      console.log(`window: ${from},${monotonicUs()}`);
      if (perf === null) return;
      const exited = new Promise((resolve) => perf.once("exit", resolve));
      perf.kill("SIGINT");
      await exited;
    },
  };
}

// The harness passes SKEIN_NODE_FLAGS of this process to the daemon's node (with those given,
// e.g. V8 flags to compare).
if (dir !== "none") {
  const given = process.env.SKEIN_NODE_FLAGS ?? "";
  process.env.SKEIN_NODE_FLAGS = `${given} --cpu-prof --cpu-prof-dir=${dir}`.trim();
}
const provider = await FakeProvider.start();
const app = await DaemonHarness.start({
  ...(process.env.SKEIN_PROFILE_BIN === undefined ? {} : { skeinBin: process.env.SKEIN_PROFILE_BIN }),
  providers: {
    bench: { protocol: "chat_completions", baseUrl: provider.baseUrlWith("v1"), apiKey: "k", model: "m" },
  },
  env: daemonEnv({
    SKEIN_LOG_LEVEL: "warn",
    ...(process.env.SKEIN_CHECKPOINTS === undefined
      ? {}
      : { SKEIN_CHECKPOINTS: process.env.SKEIN_CHECKPOINTS }),
  }),
});
// Resident memory with nothing done yet, once start-up's garbage had a moment to be collected.
await new Promise((resolve) => setTimeout(resolve, 1000));
const idleRss = rssMb(app.pid).now;
try {
  if (mode === "stream") {
    const session = await app.createSession();
    const watcherCount = Number(process.env.WATCHERS ?? 0);
    const watchers: Watcher[] = [];
    for (let i = 0; i < watcherCount; i++) watchers.push(await watch(app, session, i === 0 ? [] : null));
    provider.script = () => deltas(100_000, watcherCount === 0 ? () => "x" : stamp);
    const before = cpuMs(app.pid);
    const start = performance.now();
    const window = await openWindow();
    await app.prompt(session, "stream");
    await Promise.all(watchers.map((w) => w.done));
    await app.idle(session, 120_000);
    await window.close();
    for (const w of watchers) w.close();
    console.log(
      `stream: ${(performance.now() - start).toFixed(0)} ms wall, ${cpuMs(app.pid) - before} ms CPU`,
    );
  } else if (mode === "oneshot") {
    provider.script = () => text(["hello", " world"]);
    const count = Number(process.env.SESSIONS ?? 100);
    const warmup = Number(process.env.WARMUP ?? 5);
    for (let i = 0; i < warmup; i++) await runOneShot(app);
    const before = cpuOf(app.pid);
    const window = await openWindow();
    for (let i = 0; i < count; i++) await runOneShot(app);
    const after = cpuOf(app.pid);
    await window.close();
    const own = (after.own - before.own) / count;
    const children = (after.children - before.children) / count;
    console.log(
      `oneshot: ${(own + children).toFixed(2)} ms CPU/session (daemon ${own.toFixed(2)}, child processes ${children.toFixed(2)})`,
    );
  } else if (mode === "concurrent") {
    provider.script = () => text("ok");
    const count = Number(process.env.SESSIONS ?? 1000);
    const ids: string[] = [];
    const followers: Follower[] = [];
    for (let i = 0; i < count; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, count - i) }, () => app.createSession()),
      );
      ids.push(...batch);
      followers.push(...(await Promise.all(batch.map((id) => follow(app, id)))));
    }
    provider.reset();
    const before = cpuMs(app.pid);
    const window = await openWindow();
    const start = now();
    const seen = await Promise.all(
      ids.map(async (id, i) => {
        const turn = followers[i]!.nextTurn();
        const sent = now();
        await sendInput(app, id, "hi");
        const accepted = now() - start;
        const { firstTextAt, completedAt } = await turn;
        return { firstText: (firstTextAt ?? completedAt) - sent, accepted, end: completedAt - start };
      }),
    );
    const cpu = cpuMs(app.pid) - before;
    await window.close();
    // Where the time goes: quantiles (p50/p99/max, ms from the start) of each stage of the turns.
    const stage = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
      return `p50 ${at(0.5).toFixed(0)}, p99 ${at(0.99).toFixed(0)}, max ${sorted[sorted.length - 1]!.toFixed(0)}`;
    };
    console.log(
      `concurrent: ${count} sessions; daemon CPU ${cpu} ms (${(cpu / count).toFixed(2)} ms/turn)\n` +
        `  input accepted (PUT answered): ${stage(seen.map((s) => s.accepted))}\n` +
        `  LLM request received: ${stage(provider.requests.map((r) => r.receivedAt - start))}\n` +
        `  LLM answer written: ${stage(provider.requests.map((r) => (r.finishedAt ?? Number.NaN) - start))}\n` +
        `  turn_completed seen: ${stage(seen.map((s) => s.end))}\n` +
        `  first text (from each input sent): ${stage(seen.map((s) => s.firstText))}`,
    );
    for (const follower of followers) follower.close();
  } else {
    provider.script = () => text(["hello", " world"]);
    const turns = Number(process.env.TURNS ?? 300);
    const warmup = Number(process.env.WARMUP ?? 20);
    const sessionTurns = Number(process.env.SESSION_TURNS ?? Number.POSITIVE_INFINITY);
    let session = "";
    let watcher: Follower | null = null;
    let done = 0;
    const turn = async () => {
      if (done % sessionTurns === 0 || watcher === null) {
        watcher?.close();
        session = await app.createSession();
        watcher = await follow(app, session);
      }
      await followedTurn(app, session, watcher, `turn ${done}`);
      done++;
    };
    for (let i = 0; i < warmup; i++) await turn();
    const before = cpuMs(app.pid);
    const start = performance.now();
    const window = await openWindow();
    for (let i = 0; i < turns; i++) await turn();
    const cpu = cpuMs(app.pid) - before;
    await window.close();
    (watcher as Follower | null)?.close();
    console.log(
      `turns: ${((performance.now() - start) / turns).toFixed(2)} ms wall/turn, ${(cpu / turns).toFixed(2)} ms CPU/turn`,
    );
  }
  const rss = rssMb(app.pid);
  console.log(
    `rss: idle ${idleRss.toFixed(0)} MB, after ${rss.now.toFixed(0)} MB, peak ${rss.peak.toFixed(0)} MB`,
  );
  console.log(`daemon exited with ${await app.shutdown(10_000)}`);
} finally {
  await app.close();
  await provider.close();
}
