/**
 * Daemon bench part `turns`: sequential plain turns on one session, the fake provider answering
 * a short text at once. Per turn: the daemon's overhead (input sent → `turn_completed` seen on
 * the stream, minus the provider's own time for the request), input sent → LLM request
 * received, the daemon's CPU time, and its commits, fsyncs, SQL statements and write-ahead log
 * pages (from the group-commit counts the daemon logs when it stops, minus those of a daemon
 * that did only the setup). The same turns, by the same client, also run against the Node.js
 * floor of a plain turn (bench/turn-floor.ts): its CPU and overhead per turn are the baselines
 * of the daemon's in two more figures.
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
  type Endpoint,
  type Follower,
  follow,
  now,
  profiles,
  sendInput,
} from "./daemon-support.js";
import { type Figure, figure, quantile } from "./report.js";
import { type RequestTemplate, requestTemplateOf, startTurnFloor } from "./turn-floor.js";

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
  /** What the client read of the turn's stream, and the model request's body length (bytes). */
  streamBytes: number;
  streamFrames: number;
  requestBytes: number;
}

/** What one server's measured turns gave (the daemon's, or the turn floor's). */
interface TurnRun {
  samples: TurnSample[];
  /** The server's own CPU over the measured turns (ms): the daemon's, or the floor's. */
  serverCpu: number;
  /** CPU of the daemon's child processes (the git processes of checkpoints) over the same turns (ms). */
  childCpu: number;
  /** This process's CPU over the same turns (ms). */
  benchCpu: number;
}

/** The q-quantile (0..1) of samples in any order. */
const p = (values: number[], q = 0.5): number =>
  quantile(
    [...values].sort((a, b) => a - b),
    q,
  );

/** A server the turns run against: a daemon, or the turn floor. */
type TurnTarget = Endpoint & { pid: number; createSession(): Promise<string> };

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
  // The same turns against the Node.js floor of a plain turn, asking with the daemon's system prompt and tools.
  const lastRequest = provider.requests[provider.requests.length - 1];
  if (lastRequest === undefined) throw new Error("the daemon sent no model request");
  const floor = await floorTurns(provider, turns, warmup, requestTemplateOf(lastRequest));
  const direct: { roundTrip: number; oneWay: number; overhead: number }[] = [];
  for (let i = 0; i < warmup; i++) await bareRoundTrip(provider);
  for (let i = 0; i < turns; i++) direct.push(await bareRoundTrip(provider));
  // A turn's floor on this machine: its two round trips (input in and event out, request out and
  // answer in) and the end's fsync, with no work of the daemon's between them.
  const disk = await bareFsyncMs(tmpdir(), turns);
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
      (main.serverCpu + main.childCpu) / turns,
      "ms",
      main.benchCpu / turns,
      `daemon utime+stime plus its waited-for child processes' (the git processes of checkpoints: ${(main.childCpu / turns).toFixed(2)} ms), /proc/<pid>/stat, 10 ms ticks, over the ${turns} turns / ${turns}; baseline: this process's CPU per turn (fake provider, stream follower, input client); target <= 3 ms`,
    ),
    figure(
      "cpu_per_turn_ms_no_checkpoints",
      (bare.serverCpu + bare.childCpu) / turns,
      "ms",
      (main.serverCpu + main.childCpu) / turns,
      "the same with SKEIN_CHECKPOINTS=0 (no checkpoint, so no git process); baseline: cpu_per_turn_ms of this run",
    ),
    ...floorFigures(main, bare, floor, turns, overheadOf),
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

/** The daemon's CPU and overhead per plain turn against the Node.js floor's, of the same run and client. */
function floorFigures(
  main: TurnRun,
  bare: TurnRun,
  floor: TurnRun,
  turns: number,
  overheadOf: (run: TurnRun) => number[],
): Figure[] {
  const mean = (run: TurnRun, of: (s: TurnSample) => number) =>
    run.samples.reduce((sum, s) => sum + of(s), 0) / Math.max(1, run.samples.length);
  const seen = (run: TurnRun) =>
    `${mean(run, (s) => s.streamBytes).toFixed(0)} B in ${mean(run, (s) => s.streamFrames).toFixed(2)} frames, request ${mean(run, (s) => s.requestBytes).toFixed(0)} B`;
  const same = `per turn the client read from the daemon ${seen(main)}, from the floor ${seen(floor)}`;
  const leftOut =
    "the floor (bench/turn-floor.ts) is a minimal Fastify + undici + better-sqlite3 server of its own process: a bearer-token PUT with a JSON body answered 202 once its commit is durable, one streamed Chat Completions request parsed, the turn's events on the open SSE stream, 2 commits (WAL, synchronous=NORMAL, the log fsynced off the main thread) of one SHA-256-chained entry each with the input, turn and session rows and an Ed25519-signed head (13 SQL statements per turn, no secondary index); it leaves out what the daemon does beyond that: the log's replay and checks, the turn's other entries (turn_end, run_outcome), budgets, idempotent inputs, queues, policies, tools, compaction, checkpoints, logging, metrics, and keeps the conversation in memory";
  return [
    figure(
      "cpu_per_turn_ms_vs_node_floor",
      (main.serverCpu + main.childCpu) / turns,
      "ms",
      floor.serverCpu / turns,
      `cpu_per_turn_ms of this run against the Node.js floor of a plain turn, the same ${turns} turns by the same client (/proc/<pid>/stat, 10 ms ticks); without checkpoints the daemon took ${((bare.serverCpu + bare.childCpu) / turns).toFixed(2)} ms; the bench client's own CPU per turn: ${(main.benchCpu / turns).toFixed(2)} ms with the daemon, ${(floor.benchCpu / turns).toFixed(2)} ms with the floor; ${same}; ${leftOut}`,
    ),
    figure(
      "turn_overhead_p50_ms_vs_node_floor",
      p(overheadOf(main)),
      "ms",
      p(overheadOf(floor)),
      `turn_overhead_p50_ms of this run against the same overhead of the Node.js floor of a plain turn (cpu_per_turn_ms_vs_node_floor says what it does); p99 daemon ${p(overheadOf(main), 0.99).toFixed(2)} ms, floor ${p(overheadOf(floor), 0.99).toFixed(2)} ms; input → model request p50 daemon ${p(main.samples.map((s) => s.toProvider)).toFixed(2)} ms, floor ${p(floor.samples.map((s) => s.toProvider)).toFixed(2)} ms`,
    ),
  ];
}

/** One daemon: create a session, follow it, `warmup` turns, then `turns` measured ones. */
async function measuredTurns(
  provider: FakeProvider,
  turns: number,
  warmup: number,
  env: Record<string, string>,
): Promise<TurnRun & { commits: CommitStats }> {
  const measured: { run?: TurnRun } = {};
  const commits = await commitsOf(provider, env, async (app) => {
    measured.run = await turnsOn(app, provider, turns, warmup);
  });
  if (measured.run === undefined) throw new Error("no turns were measured");
  return { ...measured.run, commits };
}

/** The same turns against the Node.js floor of a plain turn, its requests as long as the daemon's. */
async function floorTurns(
  provider: FakeProvider,
  turns: number,
  warmup: number,
  template: RequestTemplate,
): Promise<TurnRun> {
  const floor = await startTurnFloor(provider, template);
  try {
    return await turnsOn(floor, provider, turns, warmup);
  } finally {
    await floor.close();
  }
}

/** Create a session on `target`, follow it, `warmup` turns, then `turns` measured ones. */
async function turnsOn(
  target: TurnTarget,
  provider: FakeProvider,
  turns: number,
  warmup: number,
): Promise<TurnRun> {
  const samples: TurnSample[] = [];
  const session = await target.createSession();
  const follower = await follow(target, session);
  for (let i = 0; i < warmup; i++) await oneTurn(target, provider, follower, session, `warm-up ${i}`);
  const cpuBefore = cpuOf(target.pid);
  const benchBefore = process.cpuUsage();
  for (let i = 0; i < turns; i++)
    samples.push(await oneTurn(target, provider, follower, session, `turn ${i}`));
  const cpuAfter = cpuOf(target.pid);
  const bench = process.cpuUsage(benchBefore);
  follower.close();
  return {
    samples: samples.filter((s) => Number.isFinite(s.provider)),
    serverCpu: cpuAfter.own - cpuBefore.own,
    childCpu: cpuAfter.children - cpuBefore.children,
    benchCpu: (bench.user + bench.system) / 1000,
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
  app: TurnTarget,
  provider: FakeProvider,
  follower: Follower,
  session: string,
  prompt: string,
): Promise<TurnSample> {
  const index = provider.requests.length;
  const seen = follower.nextTurn();
  const sent = now();
  await sendInput(app, session, prompt);
  const { completedAt, firstTextAt, bytes, frames } = await seen;
  const request: RecordedRequest | undefined = provider.requests[index];
  if (request === undefined) throw new Error(`turn "${prompt}" completed without a model request`);
  const finished = request.finishedAt ?? Number.NaN;
  return {
    wall: completedAt - sent,
    provider: finished - request.receivedAt,
    toProvider: request.receivedAt - sent,
    afterProvider: completedAt - finished,
    firstText: (firstTextAt ?? Number.NaN) - sent,
    streamBytes: bytes,
    streamFrames: frames,
    requestBytes: request.rawBody.length,
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
