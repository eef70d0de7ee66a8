/**
 * `npm run bench -- schedules`: what idle schedules cost the daemon. Three daemons (same build,
 * SQLite by default, PostgreSQL with SKEIN_BENCH_SCHEDULES_DB=postgres) run side by side over
 * the same window: one with no schedule (the baseline), one with 10,000 idle active schedules,
 * one with 10,000 paused ones. "Idle" means active (not paused) with a next firing that is not
 * due: a yearly cron (`0 0 1 1 *`), so the scheduler wakes (every second on PostgreSQL, every
 * minute on SQLite) with nothing to fire.
 * Figures: daemon CPU per second of the window and resident memory (the median of one reading
 * a second), on daemons restarted after the schedules were made, so what the requests that made
 * them left on the heap is not counted; and each per schedule (the difference over the count).
 * CPU is read in 10 ms ticks: over a 30 s window, 0.33 ms/s is the figure's resolution.
 */
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { DatabaseKind } from "../test/e2e/support/daemon-harness.js";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { cpuMs, daemonEnv, profiles } from "./daemon-support.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";

const count = Number(process.env.SKEIN_BENCH_SCHEDULES ?? 10_000);
const windowMs = Number(process.env.SKEIN_BENCH_SCHEDULES_WINDOW_MS ?? 30_000);
const database = (process.env.SKEIN_BENCH_SCHEDULES_DB ?? "sqlite") as DatabaseKind;
/** Requests in flight while the schedules are made. */
const concurrency = 8;

/** Resident memory of a process, in MiB (VmRSS of /proc/<pid>/status). */
function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN) / 1024;
}

/** Send `n` requests to `app`, `concurrency` at a time; `request(i)` gives the i-th. */
async function inParallel(
  app: DaemonHarness,
  n: number,
  request: (i: number) => { path: string; method: string; body: unknown },
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const { path, method, body } = request(next++);
      const answer = await app.api(path, { method, body });
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Make `n` idle schedules on `app`, aimed at one session (and pause them when `paused`). */
async function addIdleSchedules(app: DaemonHarness, n: number, paused: boolean): Promise<void> {
  const session = await app.createSession();
  await inParallel(app, n, (i) => ({
    path: "/schedules",
    method: "POST",
    body: { id: `idle-${i}`, cron: "0 0 1 1 *", session_id: session, prompt: "p", missed: "skip" },
  }));
  if (paused)
    await inParallel(app, n, (i) => ({
      path: `/schedules/idle-${i}`,
      method: "PATCH",
      body: { paused: true },
    }));
}

/** CPU per second and median RSS of each daemon over one window in which all run side by side. */
async function measure(apps: DaemonHarness[]): Promise<Array<{ cpu: number; rss: number }>> {
  const before = apps.map((app) => cpuMs(app.pid));
  const rss: number[][] = apps.map(() => []);
  for (let elapsed = 0; elapsed < windowMs; elapsed += 1_000) {
    await sleep(1_000);
    for (const [i, app] of apps.entries()) rss[i]!.push(rssMiB(app.pid));
  }
  return apps.map((app, i) => ({
    cpu: (cpuMs(app.pid) - before[i]!) / (windowMs / 1000),
    rss: quantile(
      [...rss[i]!].sort((a, b) => a - b),
      0.5,
    ),
  }));
}

/** The figures of `kind` schedules measured as `loaded` against the baseline `empty`. */
function figuresOf(
  kind: string,
  loaded: { cpu: number; rss: number },
  empty: { cpu: number; rss: number },
): Figure[] {
  const setting = `${database}, ${windowMs / 1000} s window, daemons side by side, restarted after the schedules were made`;
  return [
    figure(
      `${kind}_daemon_cpu_ms_per_s`,
      loaded.cpu,
      "ms/s",
      empty.cpu,
      `daemon utime+stime per second with ${count} ${kind} schedules (yearly cron: nothing due); baseline: a daemon with none (${setting})`,
    ),
    figure(`cpu_us_per_s_per_${kind}_schedule`, ((loaded.cpu - empty.cpu) * 1000) / count, "µs/s", null),
    figure(
      `${kind}_daemon_rss_mib`,
      loaded.rss,
      "MiB",
      empty.rss,
      `median VmRSS with ${count} ${kind} schedules; baseline: a daemon with none (${setting})`,
    ),
    figure(`rss_bytes_per_${kind}_schedule`, ((loaded.rss - empty.rss) * 1024 * 1024) / count, "B", null),
  ];
}

export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  const options = { providers: profiles(provider), env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }), database };
  const apps = [
    await DaemonHarness.start(options),
    await DaemonHarness.start(options),
    await DaemonHarness.start(options),
  ];
  const [empty, active, paused] = apps as [DaemonHarness, DaemonHarness, DaemonHarness];
  try {
    // The baseline gets its session too, so the daemons differ only in the schedules.
    await addIdleSchedules(empty, 0, false);
    await addIdleSchedules(active, count, false);
    await addIdleSchedules(paused, count, true);
    for (const app of apps) await app.restart({ crash: false });
    await sleep(3_000); // past the starts' own work
    const [none, idle, stopped] = await measure(apps);
    writeReport("schedules", [...figuresOf("idle", idle!, none!), ...figuresOf("paused", stopped!, none!)]);
  } finally {
    for (const app of apps) await app.close();
    await provider.close();
  }
}
