/**
 * Daemon bench part `oneshot`: the CPU a one-shot session costs the daemon — `skein run "hi"`
 * in a new session (the CLI creates it, attaches to its stream, sends the prompt, follows the
 * turn to its end), the fake provider answering a short text at once — against a plain turn on
 * an existing session of the same daemon. CPU is the daemon's own utime+stime plus that of the
 * child processes it waited for (the git processes of workspace checkpoints are CPU its user
 * pays for too), with checkpoints on as shipped.
 */
import { spawn } from "node:child_process";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import type { FakeProvider } from "../test/support/fake-provider/server.js";
import {
  commitStatsOf,
  cpuOf,
  daemonEnv,
  follow,
  followedTurn,
  type ProcessCpu,
  profiles,
} from "./daemon-support.js";
import { type Figure, figure } from "./report.js";

/** The daemon CPU (ms) of one-shot sessions and of plain turns, measured on one daemon. */
export interface OneShotRun {
  /** Per one-shot session: the daemon's own and its children's. */
  oneShot: ProcessCpu;
  /** Per plain turn on an existing session. */
  plainTurn: ProcessCpu;
}

/** Wait until the daemon settles (its timers after a turn), so its CPU is counted whole. */
const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** `skein run "hi"` against the daemon of `app`, from its workspace; resolves when the command exits 0. */
export function runOneShot(app: DaemonHarness): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [app.bin, "run", "hi"], {
      cwd: app.workspace,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: app.root,
        SKEIN_HOME: app.home,
        SKEIN_NO_AUTOSTART: "1",
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`skein run exited ${code}: ${stderr}`));
    });
  });
}

/**
 * The CPU a server process (a daemon, or another product's server) spent by `work`, divided by
 * `count` (the server settled `settleMs` before and after).
 */
export async function cpuPer(
  server: { pid: number },
  count: number,
  work: () => Promise<void>,
  settleMs = 300,
): Promise<ProcessCpu> {
  await settle(settleMs);
  const before = cpuOf(server.pid);
  await work();
  await settle(settleMs);
  const after = cpuOf(server.pid);
  return { own: (after.own - before.own) / count, children: (after.children - before.children) / count };
}

/** One daemon (from `skeinBin`, default this checkout's): `sessions` one-shot sessions, then `turns` plain turns. */
export async function measureOneShot(
  provider: FakeProvider,
  sessions: number,
  turns: number,
  skeinBin?: string,
): Promise<OneShotRun> {
  provider.script = () => text(["Hello", " there."]);
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
    ...(skeinBin === undefined ? {} : { skeinBin }),
  });
  try {
    // Warm-up: the first sessions load code paths (JIT, the statement cache) once per daemon.
    for (let i = 0; i < 5; i++) await runOneShot(app);
    const oneShot = await cpuPer(app, sessions, async () => {
      for (let i = 0; i < sessions; i++) await runOneShot(app);
    });
    const session = await app.createSession();
    const follower = await follow(app, session);
    const turn = (i: number) => followedTurn(app, session, follower, `turn ${i}`);
    for (let i = 0; i < 10; i++) await turn(i);
    const plainTurn = await cpuPer(app, turns, async () => {
      for (let i = 0; i < turns; i++) await turn(i);
    });
    follower.close();
    return { oneShot, plainTurn };
  } finally {
    await app.close();
  }
}

/**
 * The SQL statements and write-ahead log pages of `count` one-shot sessions after 5 warm-up
 * ones, counted by a daemon (SKEIN_TEST_COUNT_STATEMENTS=1, no workspace checkpoints) minus one
 * that ran only the warm-up.
 */
async function oneShotWrites(
  provider: FakeProvider,
  count: number,
): Promise<{ statements: number; pages: number }> {
  const countedRun = async (sessions: number) => {
    const app = await DaemonHarness.start({
      providers: profiles(provider),
      env: { SKEIN_LOG_LEVEL: "info", SKEIN_TEST_COUNT_STATEMENTS: "1", SKEIN_CHECKPOINTS: "0" },
    });
    try {
      for (let i = 0; i < sessions; i++) await runOneShot(app);
      await app.shutdown();
      return commitStatsOf(app.readLog());
    } finally {
      await app.close();
    }
  };
  const warmup = await countedRun(5);
  const more = await countedRun(5 + count);
  const per = (a: number | null, b: number | null) =>
    a === null || b === null ? Number.NaN : (a - b) / count;
  return {
    statements: per(more.statements, warmup.statements),
    pages: per(more.walFrames, warmup.walFrames),
  };
}

/** The daemon CPU of a run: its own and its children's (ms). */
export const total = (cpu: ProcessCpu): number => cpu.own + cpu.children;

/** The same measure in words. */
const split = (cpu: ProcessCpu): string =>
  `daemon ${cpu.own.toFixed(2)} ms + its child processes ${cpu.children.toFixed(2)} ms`;

/** Rounds of a comparison with another build: alternated, so drift of a shared machine hits both alike. */
const compareRounds = 3;

/**
 * The figures of the part. With SKEIN_BENCH_COMPARE_BIN (another checkout's built
 * `bin/skein.js`, e.g. main's), also both builds' one-shot CPU measured alternately, the other
 * build as the baseline: a before/after from one run.
 */
export async function oneShotFigures(provider: FakeProvider, sessions: number): Promise<Figure[]> {
  const run = await measureOneShot(provider, sessions, sessions);
  const figures = [
    figure(
      "oneshot_session_cpu_ms",
      total(run.oneShot),
      "ms",
      total(run.plainTurn),
      `daemon CPU per \`skein run "hi"\` in a new session (create, attach, one plain turn, idle), ${sessions} in a row after 5 warm-up, checkpoints on as shipped: ${split(run.oneShot)} (utime+stime and the waited-for children's, /proc/<pid>/stat, 10 ms ticks); baseline: a plain turn on an existing session of the same daemon (${split(run.plainTurn)}); target <= 5.5 ms, and <= 3 ms for the plain turn`,
    ),
  ];
  const writes = await oneShotWrites(provider, 20);
  figures.push(
    figure(
      "wal_frames_per_oneshot",
      writes.pages,
      "pages",
      null,
      `pages (4 KiB frames) a \`skein run "hi"\` in a new session writes to SQLite's write-ahead log (each copied into the database file again by the checkpointer), and ${writes.statements.toFixed(1)} SQL statements: a daemon with SKEIN_TEST_COUNT_STATEMENTS=1 and no workspace checkpoints over 20 one-shot sessions after 5 warm-up, minus one that ran only those`,
    ),
  );
  const other = process.env.SKEIN_BENCH_COMPARE_BIN;
  if (other === undefined || other === "") return figures;
  const per = Math.max(1, Math.round(sessions / compareRounds));
  const runs: { mine: OneShotRun[]; theirs: OneShotRun[] } = { mine: [], theirs: [] };
  for (let round = 0; round < compareRounds; round++) {
    runs.theirs.push(await measureOneShot(provider, per, per, other));
    runs.mine.push(await measureOneShot(provider, per, per));
  }
  const mean = (list: OneShotRun[], pick: (run: OneShotRun) => ProcessCpu): ProcessCpu => ({
    own: list.reduce((sum, r) => sum + pick(r).own, 0) / list.length,
    children: list.reduce((sum, r) => sum + pick(r).children, 0) / list.length,
  });
  const mine = { oneShot: mean(runs.mine, (r) => r.oneShot), plainTurn: mean(runs.mine, (r) => r.plainTurn) };
  const theirs = {
    oneShot: mean(runs.theirs, (r) => r.oneShot),
    plainTurn: mean(runs.theirs, (r) => r.plainTurn),
  };
  figures.push(
    figure(
      "oneshot_session_cpu_ms_vs_build",
      total(mine.oneShot),
      "ms",
      total(theirs.oneShot),
      `oneshot_session_cpu_ms of this build (${split(mine.oneShot)}) against the build of ${other} (${split(theirs.oneShot)}), ${compareRounds} alternated rounds of ${per} sessions each`,
    ),
    figure(
      "plain_turn_cpu_ms_vs_build",
      total(mine.plainTurn),
      "ms",
      total(theirs.plainTurn),
      `the plain turn of the same rounds: this build (${split(mine.plainTurn)}) against ${other} (${split(theirs.plainTurn)})`,
    ),
  );
  return figures;
}
