/**
 * `npm run bench -- opencode` (opt-in): the server CPU of a one-shot session on Skein's daemon
 * and on opencode's server (`opencode serve`), side by side in one run, by the same client and
 * the same fake provider, so the relative target of the one-shot figure (Skein at least 30×
 * cheaper than opencode) can be checked on this machine.
 *
 * Runs only when SKEIN_BENCH_OPENCODE_BIN names an opencode binary; otherwise it says it is
 * skipped and why. Nothing is downloaded: install opencode yourself outside the repo, e.g.
 * `mkdir -p ~/oc && cd ~/oc && npm install opencode-ai@1.18.33`, then
 * `SKEIN_BENCH_OPENCODE_BIN=~/oc/node_modules/opencode-linux-x64/bin/opencode npm run bench -- opencode`.
 * opencode runs in a temporary HOME and XDG directories, offline (bench/opencode-server.ts).
 *
 * The client is this process, through each server's HTTP API: subscribe to the stream, create a
 * session, send "hi", wait until the answer is complete and the session idle, unsubscribe
 * (bench/skein-http-oneshot.ts, bench/opencode-client.ts). The fake provider answers every
 * request with the same short text (Chat Completions SSE). Both workspaces are a git repository
 * with one committed file; Skein's workspace checkpoints and opencode's snapshots are on, as
 * shipped. CPU is the server process's utime+stime plus its waited-for children's
 * (/proc/<pid>/stat, 10 ms ticks), over a window of one-shots in a row: on a new server after 5
 * warm-up ones, and on the same server after a longer warm-up. Rounds alternate the servers, so
 * drift of a shared machine hits both alike. Sizes: SKEIN_BENCH_OPENCODE_ONESHOTS (per window,
 * default 30), SKEIN_BENCH_OPENCODE_WARMUP (the longer warm-up, default 200),
 * SKEIN_BENCH_OPENCODE_ROUNDS (default 3). SKEIN_BENCH_OPENCODE_CONFIG: top-level keys over
 * opencode's config (bench/opencode-server.ts), e.g. `{"snapshot":false}` or
 * `{"agent":{"title":{"disable":true}}}`, to see what a feature of opencode costs.
 * SKEIN_BENCH_OPENCODE_SUBSCRIBE=once: opencode's client keeps one event subscription instead.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { cpuPer, total } from "./daemon-oneshot.js";
import { cpuOf, daemonEnv, type ProcessCpu, profiles, rssMb } from "./daemon-support.js";
import { type OneShotSeen, opencodeOneShot, subscribe } from "./opencode-client.js";
import { gitWorkspace, OpencodeServer } from "./opencode-server.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";
import { skeinOneShot } from "./skein-http-oneshot.js";

/** A server under measurement: its process and one one-shot session on it. */
interface ServerUnderTest {
  pid: number;
  oneShot(): Promise<OneShotSeen>;
  close(): Promise<void>;
}

/** What one server gave in one round. */
interface ServerRun {
  /** CPU per one-shot on the new server (after 5 warm-up ones) and after the longer warm-up. */
  fresh: ProcessCpu;
  warm: ProcessCpu;
  /** First-text latencies (ms) of the measured one-shots. */
  firstText: number[];
  /** Requests to the fake provider per one-shot, and their body bytes. */
  providerRequests: number;
  providerBytes: number;
  /** Wall-clock ms of a measured one-shot, from subscribing to the idle session (mean). */
  wallMs: number;
  /** CPU (ms) a second while idle, after the one-shots. */
  idlePerSecond: number;
  rssMb: number;
}

/** The CPU before the window settled and after: long enough for opencode's work after `session.idle`. */
const settleMs = 1_000;

function size(name: string, fallback: number): number {
  const given = process.env[name];
  if (given === undefined || given === "") return fallback;
  const value = Number(given);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer: ${given}`);
  return value;
}

async function measure(
  server: ServerUnderTest,
  provider: FakeProvider,
  oneShots: number,
  warmup: number,
): Promise<ServerRun> {
  const firstText: number[] = [];
  const walls: number[] = [];
  const window = () =>
    cpuPer(
      server,
      oneShots,
      async () => {
        for (let i = 0; i < oneShots; i++) {
          const seen = await server.oneShot();
          if (seen.firstTextMs !== null) firstText.push(seen.firstTextMs);
          walls.push(seen.totalMs);
        }
      },
      settleMs,
    );
  for (let i = 0; i < 5; i++) await server.oneShot();
  const requestsBefore = provider.requests.length;
  const fresh = await window();
  const sent = provider.requests.slice(requestsBefore);
  const providerRequests = sent.length / oneShots;
  const providerBytes = sent.reduce((sum, request) => sum + request.rawBody.length, 0) / oneShots;
  for (let i = 0; i < warmup; i++) await server.oneShot();
  const warm = await window();
  const idleBefore = total(cpuOf(server.pid));
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const idlePerSecond = (total(cpuOf(server.pid)) - idleBefore) / 5;
  const wallMs = walls.reduce((sum, ms) => sum + ms, 0) / walls.length;
  return {
    fresh,
    warm,
    firstText,
    providerRequests,
    providerBytes,
    wallMs,
    idlePerSecond,
    rssMb: rssMb(server.pid).now,
  };
}

async function startSkein(provider: FakeProvider): Promise<ServerUnderTest> {
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
  });
  const workspace = join(app.root, "git-workspace");
  gitWorkspace(workspace);
  return { pid: app.pid, oneShot: () => skeinOneShot(app, workspace), close: () => app.close() };
}

/**
 * With SKEIN_BENCH_OPENCODE_SUBSCRIBE=once the client keeps one event subscription for the
 * server's life instead of one a one-shot (opencode's cost per one-shot grows with the
 * subscriptions opened and closed; Skein's stream is a session's, so its client subscribes anew).
 */
async function startOpencode(bin: string, provider: FakeProvider): Promise<ServerUnderTest> {
  const server = await OpencodeServer.start(bin, provider);
  const kept = process.env.SKEIN_BENCH_OPENCODE_SUBSCRIBE === "once" ? await subscribe(server) : undefined;
  return {
    pid: server.pid,
    oneShot: () => opencodeOneShot(server, kept),
    close: () => {
      kept?.close();
      return server.close();
    },
  };
}

async function measured(
  start: () => Promise<ServerUnderTest>,
  provider: FakeProvider,
  oneShots: number,
  warmup: number,
): Promise<ServerRun> {
  const server = await start();
  try {
    return await measure(server, provider, oneShots, warmup);
  } finally {
    await server.close();
  }
}

const mean = (runs: ServerRun[], pick: (run: ServerRun) => number): number =>
  runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;

const meanCpu = (runs: ServerRun[], pick: (run: ServerRun) => ProcessCpu): ProcessCpu => ({
  own: mean(runs, (run) => pick(run).own),
  children: mean(runs, (run) => pick(run).children),
});

const split = (cpu: ProcessCpu): string =>
  `${total(cpu).toFixed(2)} ms (server ${cpu.own.toFixed(2)} + children ${cpu.children.toFixed(2)})`;

/** The CPU minus what the server burns idle over a one-shot's wall time (its timers, its runtime). */
const idleAdjusted = (cpu: ProcessCpu, runs: ServerRun[]): number =>
  total(cpu) - (mean(runs, (run) => run.idlePerSecond) * mean(runs, (run) => run.wallMs)) / 1000;

const times = (skein: number, opencode: number): string =>
  skein > 0 ? `opencode/Skein ${(opencode / skein).toFixed(1)}×` : "opencode/Skein: Skein measured 0 ms";

function figures(skein: ServerRun[], opencode: ServerRun[], sizes: string): Figure[] {
  const cpuFigure = (name: string, label: string, pick: (run: ServerRun) => ProcessCpu) => {
    const mine = meanCpu(skein, pick);
    const theirs = meanCpu(opencode, pick);
    return figure(
      name,
      total(mine),
      "ms",
      total(theirs),
      `server CPU per one-shot session (${label}) over the same client and fake provider, ${sizes}: Skein ${split(mine)}, opencode ${split(theirs)}; ${times(total(mine), total(theirs))}; less each server's idle CPU over a one-shot's wall time (idle_cpu_ms_per_s_vs_opencode): Skein ${idleAdjusted(mine, skein).toFixed(2)} ms, opencode ${idleAdjusted(theirs, opencode).toFixed(2)} ms; target: Skein <= 5.5 ms and >= 30× cheaper (ratio <= 0.033)`,
    );
  };
  const firstText = (runs: ServerRun[]) => runs.flatMap((run) => run.firstText).sort((x, y) => x - y);
  const p50 = (runs: ServerRun[]) => quantile(firstText(runs), 0.5);
  const p90 = (runs: ServerRun[]) => quantile(firstText(runs), 0.9);
  return [
    cpuFigure("oneshot_cpu_ms_vs_opencode", "new server, after 5 warm-up", (run) => run.fresh),
    cpuFigure("oneshot_cpu_ms_vs_opencode_warm", "same server after the longer warm-up", (run) => run.warm),
    figure(
      "oneshot_first_text_ms_vs_opencode",
      p50(skein),
      "ms",
      p50(opencode),
      `p50 from the prompt sent to the session's first text on the client's stream, every measured one-shot; p90 Skein ${p90(skein).toFixed(1)} ms, opencode ${p90(opencode).toFixed(1)} ms`,
    ),
    figure(
      "oneshot_provider_requests_vs_opencode",
      mean(skein, (run) => run.providerRequests),
      "requests",
      mean(opencode, (run) => run.providerRequests),
      `requests to the fake provider per one-shot (opencode also asks the model for the session's title); their bodies: Skein ${mean(skein, (run) => run.providerBytes).toFixed(0)} bytes, opencode ${mean(opencode, (run) => run.providerBytes).toFixed(0)} bytes a one-shot`,
    ),
    figure(
      "idle_cpu_ms_per_s_vs_opencode",
      mean(skein, (run) => run.idlePerSecond),
      "ms/s",
      mean(opencode, (run) => run.idlePerSecond),
      `server CPU a second while idle (5 s after the one-shots; part of every window's 2 s of settling); a one-shot's wall time from subscribing to idle: Skein ${mean(skein, (run) => run.wallMs).toFixed(1)} ms, opencode ${mean(opencode, (run) => run.wallMs).toFixed(1)} ms; resident memory then: Skein ${mean(skein, (run) => run.rssMb).toFixed(0)} MB, opencode ${mean(opencode, (run) => run.rssMb).toFixed(0)} MB`,
    ),
  ];
}

/** The suite: skipped unless SKEIN_BENCH_OPENCODE_BIN names an opencode binary. */
export async function run(): Promise<void> {
  const bin = process.env.SKEIN_BENCH_OPENCODE_BIN;
  if (bin === undefined || bin === "" || !existsSync(bin)) {
    const why =
      bin === undefined || bin === ""
        ? "SKEIN_BENCH_OPENCODE_BIN is not set"
        : `SKEIN_BENCH_OPENCODE_BIN names no file (${bin})`;
    console.log(
      `\nopencode: skipped, ${why}; it names an opencode binary installed outside the repo (see bench/opencode.ts)`,
    );
    return;
  }
  const oneShots = size("SKEIN_BENCH_OPENCODE_ONESHOTS", 30);
  const warmup = size("SKEIN_BENCH_OPENCODE_WARMUP", 200);
  const rounds = size("SKEIN_BENCH_OPENCODE_ROUNDS", 3);
  const provider = await FakeProvider.start();
  provider.script = () => text(["Hello", " there."]);
  const runs: { skein: ServerRun[]; opencode: ServerRun[] } = { skein: [], opencode: [] };
  try {
    for (let round = 0; round < rounds; round++) {
      const skeinRun = () => measured(() => startSkein(provider), provider, oneShots, warmup);
      const opencodeRun = () => measured(() => startOpencode(bin, provider), provider, oneShots, warmup);
      if (round % 2 === 0) {
        runs.opencode.push(await opencodeRun());
        runs.skein.push(await skeinRun());
      } else {
        runs.skein.push(await skeinRun());
        runs.opencode.push(await opencodeRun());
      }
    }
  } finally {
    await provider.close();
  }
  const client =
    process.env.SKEIN_BENCH_OPENCODE_SUBSCRIBE === "once"
      ? "opencode's client keeping one event subscription"
      : "each client subscribing anew a one-shot";
  const sizes = `${rounds} alternated rounds of a new server each, ${oneShots} one-shots a window, the warm window after ${warmup} more, ${client}`;
  writeReport("opencode", figures(runs.skein, runs.opencode, sizes));
}
