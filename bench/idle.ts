/**
 * `npm run bench -- idle`: what a daemon with nothing to do costs. One daemon (SQLite by default,
 * PostgreSQL with SKEIN_BENCH_IDLE_DB=postgres), no session, nobody reading its metrics: its CPU
 * over the first 25 s after it is ready (V8's memory-reducing collections of the boot's heap
 * fall there), then CPU per second and wake-ups per second over a steady window. CPU is read per
 * thread from /proc/<pid>/task/*\/schedstat (nanoseconds, not the 10 ms ticks of /proc/<pid>/stat);
 * a wake-up is a voluntary context switch of any of its threads (an event loop that sleeps in
 * epoll and is woken counts one). On PostgreSQL also the daemon's reads of its tables per
 * second (scans of its schema's tables, `pg_stat_user_tables`): unlike CPU, a figure the other
 * load of a shared machine does not move.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { DatabaseKind } from "../test/e2e/support/daemon-harness.js";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { daemonEnv, profiles } from "./daemon-support.js";
import { figure, writeReport } from "./report.js";

const database = (process.env.SKEIN_BENCH_IDLE_DB ?? "sqlite") as DatabaseKind;
const windowMs = Number(process.env.SKEIN_BENCH_IDLE_WINDOW_MS ?? 60_000);
const bootPhaseMs = 25_000;

/** Scans (sequential and by index) of each table in the daemon's PostgreSQL schema so far. */
async function tableScans(app: DaemonHarness): Promise<Map<string, number>> {
  if (app.pg === null) return new Map();
  const rows = await app.pg.query<{ name: string; scans: string }>(
    `SELECT relname AS name, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans
     FROM pg_stat_user_tables WHERE schemaname = current_schema()`,
  );
  return new Map(rows.map((row) => [row.name, Number(row.scans)]));
}

/** Each table's scans per second between two counts, busiest first ("schedules 0.2, …"). */
function scanRates(from: Map<string, number>, to: Map<string, number>, seconds: number): string {
  return [...to]
    .map(([name, scans]) => ({ name, rate: (scans - (from.get(name) ?? 0)) / seconds }))
    .filter((table) => table.rate > 0)
    .sort((a, b) => b.rate - a.rate)
    .map((table) => `${table.name} ${table.rate.toFixed(2)}`)
    .join(", ");
}

/** CPU time (µs) and voluntary context switches of every live thread of `pid`. */
function threadTotals(pid: number): { cpuUs: number; switches: number } {
  let cpuUs = 0;
  let switches = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    cpuUs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1000;
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
    switches += Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? 0);
  }
  return { cpuUs, switches };
}

export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
    database,
  });
  try {
    const ready = threadTotals(app.pid);
    await sleep(bootPhaseMs);
    const steady = threadTotals(app.pid);
    const steadyScans = await tableScans(app);
    await sleep(windowMs);
    const end = threadTotals(app.pid);
    const endScans = await tableScans(app);
    const seconds = windowMs / 1000;
    const setting = `${database}, no session, metrics unread`;
    writeReport("idle", [
      figure(
        "idle_daemon_boot_phase_cpu_ms",
        (steady.cpuUs - ready.cpuUs) / 1000,
        "ms",
        null,
        `CPU of the first ${bootPhaseMs / 1000} s after ready (${setting})`,
      ),
      figure(
        "idle_daemon_cpu_us_per_s",
        (end.cpuUs - steady.cpuUs) / seconds,
        "µs/s",
        null,
        `CPU per second over ${seconds} s after that (${setting})`,
      ),
      figure(
        "idle_daemon_wakeups_per_s",
        (end.switches - steady.switches) / seconds,
        "1/s",
        null,
        `voluntary context switches of all threads per second, same window (${setting})`,
      ),
      ...(app.pg === null
        ? []
        : [
            figure(
              "idle_daemon_table_scans_per_s",
              [...endScans].reduce((sum, [name, scans]) => sum + scans - (steadyScans.get(name) ?? 0), 0) /
                seconds,
              "1/s",
              null,
              `reads of its tables per second, same window: ${scanRates(steadyScans, endScans, seconds)}`,
            ),
          ]),
    ]);
  } finally {
    await app.close();
    await provider.close();
  }
}
