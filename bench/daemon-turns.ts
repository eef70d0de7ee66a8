/**
 * Daemon bench part `turns`: sequential plain turns on one session, the fake provider answering
 * a short text at once. Per turn: the daemon's overhead (input sent → `turn_completed` seen on
 * the stream, minus the provider's own time for the request), input sent → LLM request
 * received, the daemon's CPU time, and its commits, fsyncs, SQL statements and write-ahead log
 * pages (from the group-commit counts the daemon logs when it stops, minus those of a daemon
 * that did only the setup).
 */
import { tmpdir } from "node:os";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import type { FakeProvider, RecordedRequest } from "../test/support/fake-provider/server.js";
import {
  bareFsyncMs,
  type CommitStats,
  commitStatsOf,
  cpuOf,
  daemonEnv,
  type Follower,
  follow,
  now,
  profiles,
  sendInput,
} from "./daemon-support.js";
import { type Figure, figure, quantile } from "./report.js";

/** One measured turn (ms). */
interface TurnSample {
  /** Input sent → `turn_completed` seen. */
  wall: number;
  /** The provider's own time: request received → last byte written. */
  provider: number;
  /** Input sent → the provider received the request. */
  toProvider: number;
  /** The provider wrote its last byte → `turn_completed` seen. */
  afterProvider: number;
  /** Input sent → the turn's first text seen on the stream. */
  firstText: number;
}

/** What one daemon's measured turns gave. */
interface TurnRun {
  samples: TurnSample[];
  /** Daemon CPU over the measured turns (ms). */
  daemonCpu: number;
  /** CPU of the daemon's child processes (the git processes of checkpoints) over the same turns (ms). */
  childCpu: number;
  /** This process's CPU over the same turns (ms). */
  benchCpu: number;
  commits: CommitStats;
}

/** Run `turns` measured turns after `warmup` ones; the figures of the part. */
export async function turnFigures(provider: FakeProvider, turns: number, warmup: number): Promise<Figure[]> {
  provider.script = () => text(["Hello", " there."]);
  // A daemon that does only the setup (create, attach, warm-up): its commits are subtracted.
  // It counts its SQL statements too (untimed: counting makes SQLite expand each statement).
  const counting = { SKEIN_TEST_COUNT_STATEMENTS: "1" };
  const setupThen = (extra: number) => async (app: DaemonHarness) => {
    const session = await app.createSession();
    const follower = await follow(app, session);
    for (let i = 0; i < warmup + extra; i++) await oneTurn(app, provider, follower, session, `turn ${i}`);
    follower.close();
  };
  const setup = await commitsOf(provider, counting, setupThen(0));
  // The same setup and `counted` more turns, for the statements a turn runs.
  const counted = 50;
  const countedRun = await commitsOf(provider, { SKEIN_CHECKPOINTS: "0", ...counting }, setupThen(counted));
  const setupUncheckpointed = await commitsOf(
    provider,
    { SKEIN_CHECKPOINTS: "0", ...counting },
    setupThen(0),
  );
  const main = await measuredTurns(provider, turns, warmup, {});
  // The same without workspace checkpoints (a git store written around each turn): their share.
  const bare = await measuredTurns(provider, turns, warmup, { SKEIN_CHECKPOINTS: "0" });
  const direct: { roundTrip: number; oneWay: number; overhead: number }[] = [];
  for (let i = 0; i < warmup; i++) await bareRoundTrip(provider);
  for (let i = 0; i < turns; i++) direct.push(await bareRoundTrip(provider));
  // A turn's floor on this machine: its two round trips (input in and event out, request out and
  // answer in) and the end's fsync, with no work of the daemon's between them.
  const disk = await bareFsyncMs(tmpdir(), turns);
  const p = (values: number[], q = 0.5) =>
    quantile(
      [...values].sort((a, b) => a - b),
      q,
    );
  const overheadOf = (run: TurnRun) => run.samples.map((s) => s.wall - s.provider);
  const toProviderOf = (run: TurnRun) => run.samples.map((s) => s.toProvider);
  const afterOf = (run: TurnRun) => run.samples.map((s) => s.afterProvider);
  // What a user waits for: the first words of the answer, less what the provider itself took.
  const firstTextOf = (run: TurnRun) =>
    run.samples.filter((s) => Number.isFinite(s.firstText)).map((s) => s.firstText - s.provider);
  const total = main.commits;
  const perTurn = (count: number | null, setupCount: number | null): number =>
    count === null || setupCount === null ? Number.NaN : (count - setupCount) / turns;
  const fsyncNote =
    total.fsyncs === null
      ? "n/a: the daemon does not log fsyncs yet"
      : `${total.fsyncs} in all, ${setup.fsyncs} of them setup`;
  const split = (run: TurnRun) =>
    `before the LLM request p50 ${p(toProviderOf(run)).toFixed(2)} ms, after its last byte p50 ${p(afterOf(run)).toFixed(2)} ms`;
  return [
    figure(
      "turn_overhead_p50_ms",
      p(overheadOf(main)),
      "ms",
      p(direct.map((d) => d.overhead)),
      `${turns} sequential plain turns on one session after ${warmup} warm-up: input PUT sent → turn_completed seen on the stream, minus the provider's own time (request received → last byte written); p99 ${p(overheadOf(main), 0.99).toFixed(2)} ms; ${split(main)}; baseline: a bare POST round trip to the provider minus its own time; floor (two bare round trips less the provider's own time, + this disk's bare fsync, p50s of this run): ${(2 * p(direct.map((d) => d.overhead)) + quantile(disk, 0.5)).toFixed(2)} ms; target <= 3 ms`,
    ),
    figure(
      "turn_overhead_p50_ms_no_checkpoints",
      p(overheadOf(bare)),
      "ms",
      p(overheadOf(main)),
      `the same with SKEIN_CHECKPOINTS=0 (no git checkpoint of the workspace around each turn); ${split(bare)}; baseline: turn_overhead_p50_ms (with checkpoints) of this run`,
    ),
    figure(
      "send_to_llm_request_p50_ms",
      p(toProviderOf(main)),
      "ms",
      p(direct.map((d) => d.roundTrip)),
      `input PUT sent → the fake provider received the model request; baseline: a bare HTTP POST round trip to the provider (the one-way part of it p50 ${p(direct.map((d) => d.oneWay)).toFixed(2)} ms); target <= 2 ms`,
    ),
    figure(
      "input_to_first_text_p50_ms",
      p(firstTextOf(main)),
      "ms",
      p(direct.map((d) => d.overhead)),
      `input PUT sent → the turn's first text event parsed from the stream, minus the provider's own time (request received → last byte written, which bounds its time to the first byte); p99 ${p(firstTextOf(main), 0.99).toFixed(2)} ms; the first text waits for the turn's start to be durable; baseline: a bare POST round trip to the provider minus its own time`,
    ),
    figure(
      "cpu_per_turn_ms",
      (main.daemonCpu + main.childCpu) / turns,
      "ms",
      main.benchCpu / turns,
      `daemon utime+stime plus its waited-for child processes' (the git processes of checkpoints: ${(main.childCpu / turns).toFixed(2)} ms), /proc/<pid>/stat, 10 ms ticks, over the ${turns} turns / ${turns}; baseline: this process's CPU per turn (fake provider, stream follower, input client); target <= 3 ms`,
    ),
    figure(
      "cpu_per_turn_ms_no_checkpoints",
      (bare.daemonCpu + bare.childCpu) / turns,
      "ms",
      (main.daemonCpu + main.childCpu) / turns,
      "the same with SKEIN_CHECKPOINTS=0 (no checkpoint, so no git process); baseline: cpu_per_turn_ms of this run",
    ),
    figure(
      "commits_per_turn",
      perTurn(total.transactions, setup.transactions),
      "commits",
      null,
      `group-commit transactions logged at daemon stop, minus those of a daemon that did only the setup (${setup.transactions}); write requests per turn ${perTurn(total.requests, setup.requests).toFixed(2)}; target <= 2`,
    ),
    figure(
      "sql_statements_per_turn",
      countedRun.statements === null || setupUncheckpointed.statements === null
        ? Number.NaN
        : (countedRun.statements - setupUncheckpointed.statements) / counted,
      "statements",
      null,
      `SQL statements a plain turn runs on the daemon's SQLite connection (BEGIN, savepoints and COMMIT included), counted by a daemon with SKEIN_TEST_COUNT_STATEMENTS=1 and no workspace checkpoints over ${counted} turns after the same setup, minus a daemon that did only the setup`,
    ),
    figure(
      "wal_frames_per_turn",
      countedRun.walFrames === null || setupUncheckpointed.walFrames === null
        ? Number.NaN
        : (countedRun.walFrames - setupUncheckpointed.walFrames) / counted,
      "pages",
      null,
      `pages (4 KiB frames) a plain turn's commits write to SQLite's write-ahead log, each copied into the database file again by the checkpointer; counted with the statements above (from the log's shared-memory index before each statement); \`tsx bench/wal-pages.ts\` tells which table or index they belong to`,
    ),
    figure(
      "fsyncs_per_turn",
      perTurn(total.fsyncs, setup.fsyncs),
      "fsyncs",
      null,
      `fsyncs logged at daemon stop (${fsyncNote}); target <= 2 for a plain turn`,
    ),
  ];
}

/** One daemon: create a session, follow it, `warmup` turns, then `turns` measured ones. */
async function measuredTurns(
  provider: FakeProvider,
  turns: number,
  warmup: number,
  env: Record<string, string>,
): Promise<TurnRun> {
  const samples: TurnSample[] = [];
  let daemonCpu = 0;
  let childCpu = 0;
  let benchCpu = 0;
  const commits = await commitsOf(provider, env, async (app) => {
    const session = await app.createSession();
    const follower = await follow(app, session);
    for (let i = 0; i < warmup; i++) await oneTurn(app, provider, follower, session, `warm-up ${i}`);
    const cpuBefore = cpuOf(app.pid);
    const benchBefore = process.cpuUsage();
    for (let i = 0; i < turns; i++)
      samples.push(await oneTurn(app, provider, follower, session, `turn ${i}`));
    const cpuAfter = cpuOf(app.pid);
    daemonCpu = cpuAfter.own - cpuBefore.own;
    childCpu = cpuAfter.children - cpuBefore.children;
    const bench = process.cpuUsage(benchBefore);
    benchCpu = (bench.user + bench.system) / 1000;
    follower.close();
  });
  return {
    samples: samples.filter((s) => Number.isFinite(s.provider)),
    daemonCpu,
    childCpu,
    benchCpu,
    commits,
  };
}

/** Start a daemon (level info: the stop line carries the counts), run `work`, stop it, read its counts. */
async function commitsOf(
  provider: FakeProvider,
  env: Record<string, string>,
  work: (app: DaemonHarness) => Promise<void>,
): Promise<CommitStats> {
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "info", ...env }),
  });
  try {
    await work(app);
    await app.shutdown();
    return commitStatsOf(app.readLog());
  } finally {
    await app.close();
  }
}

async function oneTurn(
  app: DaemonHarness,
  provider: FakeProvider,
  follower: Follower,
  session: string,
  prompt: string,
): Promise<TurnSample> {
  const index = provider.requests.length;
  const seen = follower.nextTurn();
  const sent = now();
  await sendInput(app, session, prompt);
  const { completedAt, firstTextAt } = await seen;
  const request: RecordedRequest | undefined = provider.requests[index];
  if (request === undefined) throw new Error(`turn "${prompt}" completed without a model request`);
  const finished = request.finishedAt ?? Number.NaN;
  return {
    wall: completedAt - sent,
    provider: finished - request.receivedAt,
    toProvider: request.receivedAt - sent,
    afterProvider: completedAt - finished,
    firstText: (firstTextAt ?? Number.NaN) - sent,
  };
}

/** A bare streamed POST to the provider, read to its end (ms): round trip, one way, and the round trip beyond the provider's own time. */
async function bareRoundTrip(
  provider: FakeProvider,
): Promise<{ roundTrip: number; oneWay: number; overhead: number }> {
  const index = provider.requests.length;
  const sent = now();
  const response = await fetch(`${provider.baseUrlWith("v1")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench-model", stream: true, messages: [{ role: "user", content: "x" }] }),
  });
  await response.text();
  const done = now();
  const request = provider.requests[index]!;
  const own = (request.finishedAt ?? Number.NaN) - request.receivedAt;
  return { roundTrip: done - sent, oneWay: request.receivedAt - sent, overhead: done - sent - own };
}
