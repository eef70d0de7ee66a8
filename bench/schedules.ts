/**
 * `npm run bench -- schedules`: what idle schedules cost the daemon. Two daemons (same build,
 * SQLite by default, PostgreSQL with SKEIN_BENCH_SCHEDULES_DB=postgres) run side by side over
 * the same window: one with no schedule (the baseline), one with 10,000 idle ones. "Idle" means
 * active (not paused) with a next firing that is not due: a yearly cron (`0 0 1 1 *`), so the
 * scheduler ticks (every second) but has nothing to fire. Figures: daemon CPU per second of the
 * window, and resident memory after it, both measured on daemons restarted after the schedules
 * were made; each per idle schedule too (the difference over the count). CPU is read in 10 ms
 * ticks, so over a 30 s window a difference under 0.33 ms/s is below what the figure resolves.
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { DatabaseKind } from "../test/e2e/support/daemon-harness.js";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { cpuMs, daemonEnv, profiles } from "./daemon-support.js";
import { figure, writeReport } from "./report.js";

const count = Number(process.env.SKEIN_BENCH_SCHEDULES ?? 10_000);
const windowMs = Number(process.env.SKEIN_BENCH_SCHEDULES_WINDOW_MS ?? 30_000);
const database = (process.env.SKEIN_BENCH_SCHEDULES_DB ?? "sqlite") as DatabaseKind;
/** Requests in flight while the schedules are created. */
const concurrency = 8;

/** Resident memory of a process, in MiB (VmRSS of /proc/<pid>/status). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) / 1024;
}

/** Create `n` idle schedules on `app`, aimed at one session. */
async function addIdleSchedules(app: DaemonHarness, n: number): Promise<void> {
  const session = await app.createSession();
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const body = { id: `idle-${i}`, cron: "0 0 1 1 *", session_id: session, prompt: "p", missed: "skip" };
      const answer = await app.api("/schedules", { method: "POST", body });
      if (answer.status !== 201) throw new Error(`schedule ${i}: ${answer.status} ${answer.text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  const options = { providers: profiles(provider), env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }), database };
  const empty = await DaemonHarness.start(options);
  const loaded = await DaemonHarness.start(options);
  try {
    // The baseline gets one session too, so the two differ only in the schedules.
    await addIdleSchedules(empty, 0);
    const createStart = performance.now();
    await addIdleSchedules(loaded, count);
    const createMs = performance.now() - createStart;
    // Fresh processes over the stored rows: what the 10,000 requests that made them left on
    // the heap is not the schedules' cost.
    await empty.restart({ crash: false });
    await loaded.restart({ crash: false });
    await sleep(3_000); // past the start's own work
    const before = { empty: cpuMs(empty.pid), loaded: cpuMs(loaded.pid) };
    await sleep(windowMs);
    const seconds = windowMs / 1000;
    const cpu = {
      empty: (cpuMs(empty.pid) - before.empty) / seconds,
      loaded: (cpuMs(loaded.pid) - before.loaded) / seconds,
    };
    const rss = { empty: rssMiB(empty.pid), loaded: rssMiB(loaded.pid) };
    const setting = `${database}, ${seconds} s window, both daemons side by side`;
    writeReport("schedules", [
      figure(
        "idle_daemon_cpu_ms_per_s",
        cpu.loaded,
        "ms/s",
        cpu.empty,
        `daemon utime+stime per second with ${count} idle schedules (active, yearly cron: nothing due); baseline: a daemon with none (${setting})`,
      ),
      figure(
        "cpu_us_per_s_per_idle_schedule",
        ((cpu.loaded - cpu.empty) * 1000) / count,
        "µs/s",
        null,
        `(loaded - baseline CPU per second) / ${count}`,
      ),
      figure(
        "idle_daemon_rss_mib",
        rss.loaded,
        "MiB",
        rss.empty,
        `VmRSS after the window with ${count} idle schedules; baseline: a daemon with none (${setting})`,
      ),
      figure(
        "rss_bytes_per_idle_schedule",
        ((rss.loaded - rss.empty) * 1024 * 1024) / count,
        "B",
        null,
        `(loaded - baseline VmRSS) / ${count}; created in ${(createMs / 1000).toFixed(1)} s over POST /schedules, both daemons restarted before measuring`,
      ),
    ]);
  } finally {
    await empty.close();
    await loaded.close();
    await provider.close();
  }
}
