/**
 * `npm run bench -- daemon`: the daemon's streaming, latency, concurrency and start-up figures,
 * each with a baseline measured in the same run (see bench/report.ts).
 *
 * The daemon runs as a real child process (`bin/skein.js daemon run`, built code); the fake
 * provider and the SSE watchers run in this process. Delays are measured from the moment the
 * provider wrote a delta (its text carries `performance.timeOrigin + performance.now()`) to the
 * moment a watcher parsed it; both clocks are the same machine's wall clock. The parts `turns`,
 * `oneshot`, `warm` and `slowcommit` live in bench/daemon-turns.ts, bench/daemon-oneshot.ts,
 * bench/daemon-warm.ts and bench/daemon-slow-commit.ts.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { v7 as uuidv7 } from "uuid";
import { loadSigningKey } from "../src/daemon/process/signing-key.js";
import { openDaemonDatabase } from "../src/daemon/storage/database.js";
import { SqliteSessionStorage } from "../src/daemon/storage/sqlite-session-storage.js";
import { homePaths } from "../src/home/home.js";
import type { LogEntry } from "../src/log/entries.js";
import { assistantMessage, toolCall, toolResult, userMessage } from "../src/model/items.js";
import { DaemonHarness, rawRequest } from "../test/e2e/support/daemon-harness.js";
import { deliver, deltas, type Reply, text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { oneShotFigures } from "./daemon-oneshot.js";
import { scaleFigures } from "./daemon-scale.js";
import { slowCommitFigures } from "./daemon-slow-commit.js";
import {
  bareFsyncMs,
  cpuMs,
  daemonEnv,
  type Follower,
  follow,
  now,
  profiles,
  sendInput,
  stamp,
  type Watcher,
  watch,
} from "./daemon-support.js";
import { turnFigures } from "./daemon-turns.js";
import { warmFigures } from "./daemon-warm.js";
import { type Figure, figure, mergeWithLast, quantile, writeReport } from "./report.js";

/** The parts of the suite; `SKEIN_BENCH_PARTS=stream,snapshot` runs only those (figures merged into the last report). */
const parts = [
  "cold",
  "stream",
  "first",
  "turns",
  "oneshot",
  "warm",
  "concurrent",
  "slowcommit",
  "snapshot",
  "scale",
] as const;
type Part = (typeof parts)[number];

function selectedParts(): Set<Part> {
  const given = process.env.SKEIN_BENCH_PARTS;
  if (given === undefined || given === "") return new Set(parts);
  const names = given.split(",");
  const unknown = names.filter((name) => !(parts as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(`unknown daemon bench part(s) ${unknown.join(", ")}; known: ${parts.join(", ")}`);
  return new Set(names as Part[]);
}

/**
 * A size from the environment (for quick runs while working on a part), or its default:
 * SKEIN_BENCH_TURNS (part turns), SKEIN_BENCH_ONESHOTS (oneshot), SKEIN_BENCH_SESSIONS (concurrent),
 * SKEIN_BENCH_SCALE_SESSIONS, SKEIN_BENCH_SCALE_LOADED, SKEIN_BENCH_SCALE_PAGES (scale; and
 * SKEIN_BENCH_SCALE_BACKENDS: sqlite,postgres by default), SKEIN_BENCH_BUSY and
 * SKEIN_BENCH_DELTAS (slowcommit).
 */
function size(name: string, fallback: number): number {
  const given = process.env[name];
  if (given === undefined || given === "") return fallback;
  const value = Number(given);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got ${given}`);
  return value;
}

/** Run every daemon figure (or the parts SKEIN_BENCH_PARTS names). */
export async function run(): Promise<void> {
  const selected = selectedParts();
  const provider = await FakeProvider.start();
  const figures: Figure[] = [];
  try {
    if (selected.has("cold")) figures.push(...(await coldStart(provider)));
    if (selected.has("stream") || selected.has("first")) {
      const app = await DaemonHarness.start({
        providers: profiles(provider),
        env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
      });
      try {
        if (selected.has("stream")) {
          // Warm both paths up (JIT, connection pools) before anything is timed.
          await directStream(provider, 20_000);
          await streamOnce(app, provider, 1, (stampDelta) => deltas(20_000, stampDelta));
          const baseline = await directStream(provider, 100_000);
          for (const watchers of [1, 10, 100]) {
            figures.push(...(await streamDeltas(app, provider, watchers, baseline)));
          }
        }
        if (selected.has("first")) figures.push(...(await firstToken(app, provider)));
      } finally {
        await app.close();
      }
    }
    if (selected.has("turns"))
      figures.push(...(await turnFigures(provider, size("SKEIN_BENCH_TURNS", 200), 20)));
    if (selected.has("oneshot"))
      figures.push(...(await oneShotFigures(provider, size("SKEIN_BENCH_ONESHOTS", 100))));
    if (selected.has("warm"))
      figures.push(...(await warmFigures(provider, size("SKEIN_BENCH_ONESHOTS", 100))));
    if (selected.has("concurrent"))
      figures.push(...(await concurrentTurns(provider, size("SKEIN_BENCH_SESSIONS", 1000))));
    if (selected.has("slowcommit"))
      figures.push(
        ...(await slowCommitFigures(provider, size("SKEIN_BENCH_BUSY", 8), size("SKEIN_BENCH_DELTAS", 2000))),
      );
    if (selected.has("snapshot")) figures.push(...(await snapshotCost(provider)));
    if (selected.has("scale")) {
      const scale = {
        sessions: size("SKEIN_BENCH_SCALE_SESSIONS", 100_000),
        loaded: size("SKEIN_BENCH_SCALE_LOADED", 10_000),
        baselineSessions: 1_000,
        pageSamples: size("SKEIN_BENCH_SCALE_PAGES", 100),
        turns: 30,
      };
      for (const backend of (process.env.SKEIN_BENCH_SCALE_BACKENDS ?? "sqlite,postgres").split(",")) {
        if (backend !== "sqlite" && backend !== "postgres")
          throw new Error(`SKEIN_BENCH_SCALE_BACKENDS: unknown backend ${backend}`);
        figures.push(...(await scaleFigures(provider, scale, backend)));
      }
    }
  } finally {
    await provider.close();
  }
  writeReport("daemon", selected.size === parts.length ? figures : mergeWithLast("daemon", figures));
}

// ---------------------------------------------------------------------------------------------
// Streaming throughput and delivery delay

async function streamDeltas(
  app: DaemonHarness,
  provider: FakeProvider,
  watcherCount: number,
  baselinePerSecond: number,
): Promise<Figure[]> {
  const label = `${watcherCount}_watcher${watcherCount === 1 ? "" : "s"}`;
  // Throughput: the provider floods 100,000 deltas as fast as it can.
  const flood = await streamOnce(app, provider, watcherCount, (stampDelta) => deltas(100_000, stampDelta));
  // Delay: a fast but realistic pace (one delta per millisecond, ~10x a quick model), so the
  // figure is the daemon's own delay, not the queue a flood builds in front of it.
  const paced = await streamOnce(app, provider, watcherCount, (stampDelta) =>
    deliver(deltas(2_000, stampDelta), { delayMs: 1 }),
  );
  return [
    figure(
      `stream_deltas_per_s_${label}`,
      flood.perSecond,
      "deltas/s",
      baselinePerSecond,
      `100000 deltas delivered to each of ${watcherCount} watcher(s)${flood.complete ? "" : " (INCOMPLETE delivery!)"}; baseline: the fake provider streaming the same deltas straight to one client; target >= 100000 at 1 watcher`,
    ),
    figure(
      `delivery_delay_p50_ms_${label}`,
      quantile(paced.delays, 0.5),
      "ms",
      null,
      "provider write -> watcher parse at 1 delta/ms, one watcher sampled; deltas merged per 16 ms frame",
    ),
    figure(
      `delivery_delay_p99_ms_${label}`,
      quantile(paced.delays, 0.99),
      "ms",
      null,
      "target at 10 watchers: < 20 ms",
    ),
    figure(
      `flood_delay_p99_ms_${label}`,
      quantile(flood.delays, 0.99),
      "ms",
      null,
      "the same during the 100k flood: dominated by the queue in front of the daemon",
    ),
  ];
}

async function streamOnce(
  app: DaemonHarness,
  provider: FakeProvider,
  watcherCount: number,
  reply: (stampDelta: () => string) => Reply,
): Promise<{ perSecond: number; delays: number[]; complete: boolean }> {
  const session = await app.createSession();
  const delays: number[] = [];
  const watchers: Watcher[] = [];
  for (let i = 0; i < watcherCount; i++) watchers.push(await watch(app, session, i === 0 ? delays : null));
  let firstWrite = 0;
  let count = 0;
  provider.script = () =>
    reply(() => {
      const s = stamp();
      if (firstWrite === 0) firstWrite = Number(s.slice(1));
      count += 1;
      return s;
    });
  await app.prompt(session, "stream");
  await Promise.all(watchers.map((w) => w.done));
  const end = now();
  // Every watcher must end on the same frame id: nothing is published after the turn's last events.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const expected = watchers[0]!.position();
  const complete = watchers.every((w) => w.position() === expected);
  for (const w of watchers) w.close();
  await app.idle(session);
  delays.sort((a, b) => a - b);
  return { perSecond: count / ((end - firstWrite) / 1000), delays, complete };
}

/** The same deltas read straight from the fake provider by one client: deltas/s. */
async function directStream(provider: FakeProvider, count: number): Promise<number> {
  provider.script = () => deltas(count, stamp);
  const start = now();
  const response = await fetch(`${provider.baseUrlWith("v1")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench-model", stream: true, messages: [{ role: "user", content: "x" }] }),
  });
  let seen = 0;
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) {
    buffered += decoder.decode(chunk, { stream: true });
    let end = buffered.indexOf("\n\n");
    while (end >= 0) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf("\n\n");
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const chunkJson = JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] };
      if (chunkJson.choices[0]?.delta.content?.startsWith("|") === true) seen += 1;
    }
  }
  return seen / ((now() - start) / 1000);
}

// ---------------------------------------------------------------------------------------------
// First token overhead

async function firstToken(app: DaemonHarness, provider: FakeProvider): Promise<Figure[]> {
  const turns = 200;
  const session = await app.createSession();
  const overhead: number[] = [];
  for (let i = 0; i < turns; i++) {
    const delays: number[] = [];
    const watcher = await watch(app, session, delays);
    provider.script = () => text([stamp(), " done"]);
    await app.prompt(session, `turn ${i}`);
    await watcher.done;
    watcher.close();
    await app.idle(session);
    if (delays.length > 0) overhead.push(delays[0]!);
  }
  const direct: number[] = [];
  for (let i = 0; i < turns; i++) direct.push(await directFirstDelta(provider));
  overhead.sort((a, b) => a - b);
  direct.sort((a, b) => a - b);
  // A first delta is held until the turn's start is durable: the disk's fsync tail shows here.
  const disk = await bareFsyncMs(app.home, turns);
  const diskNote = `this disk's bare fsync in this run: p50 ${quantile(disk, 0.5).toFixed(2)} ms, p99 ${quantile(disk, 0.99).toFixed(2)} ms`;
  return [
    figure(
      "first_token_overhead_p50_ms",
      quantile(overhead, 0.5),
      "ms",
      quantile(direct, 0.5),
      "provider writes the first delta → first SSE frame parsed at a client; baseline: the same delta read straight from the provider",
    ),
    figure(
      "first_token_overhead_p99_ms",
      quantile(overhead, 0.99),
      "ms",
      quantile(direct, 0.99),
      `target: p99 < 10 ms; the first delta waits for the start's fsync (${diskNote})`,
    ),
  ];
}

async function directFirstDelta(provider: FakeProvider): Promise<number> {
  provider.script = () => text([stamp(), " done"]);
  const response = await fetch(`${provider.baseUrlWith("v1")}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "bench-model", stream: true, messages: [{ role: "user", content: "x" }] }),
  });
  const decoder = new TextDecoder();
  let buffered = "";
  let delay = Number.NaN;
  for await (const chunk of response.body!) {
    const receivedAt = now();
    buffered += decoder.decode(chunk, { stream: true });
    const match = Number.isNaN(delay) ? /"content":"\|([0-9.]+)"/.exec(buffered) : null;
    if (match !== null) delay = receivedAt - Number(match[1]);
  }
  return delay;
}

// ---------------------------------------------------------------------------------------------
// 1,000 concurrent turns, memory per session

async function concurrentTurns(provider: FakeProvider, sessions: number): Promise<Figure[]> {
  provider.script = () => text("ok");
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
  });
  try {
    await settle();
    const emptyRss = rssOf(app.pid).rss;
    const ids: string[] = [];
    // Created in two halves: the second half's growth is the marginal cost of a session, free
    // of what the first writes bring once (the checkpoint worker, SQLite's page cache, V8's
    // young generation growing to its working size).
    let halfRss: number | null = null;
    let createdAtHalf = 0;
    for (let i = 0; i < sessions; i += 50) {
      if (i >= sessions / 2 && halfRss === null) {
        await settle();
        halfRss = rssOf(app.pid).rss;
        createdAtHalf = i;
      }
      ids.push(
        ...(await Promise.all(Array.from({ length: Math.min(50, sessions - i) }, () => app.createSession()))),
      );
    }
    await settle();
    const loadedRss = rssOf(app.pid).rss;
    const secondHalf = sessions - createdAtHalf;
    provider.reset();
    const cpuBefore = cpuMs(app.pid);
    const start = now();
    await Promise.all(ids.map((id) => app.prompt(id, "hi", uuidv7())));
    const accepted = now() - start;
    for (;;) {
      const list = (await app.api("/sessions?limit=1000")).json<{
        items: { status: { phase: string }; preview: { transcript_count: number } }[];
      }>();
      if (list.items.every((s) => s.status.phase === "idle" && s.preview.transcript_count >= 2)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const wall = now() - start;
    const cpu = cpuMs(app.pid) - cpuBefore;
    const peak = rssOf(app.pid).hwm;
    // A second turn on every session, each followed on its stream: POST input → first text.
    const streamed = await concurrentFirstText(app, ids);
    // A fresh daemon on the same home: every session unloaded (rows and logs on disk only).
    await app.restart({ crash: false });
    await settle();
    const unloadedRss = rssOf(app.pid).rss;
    const direct = await directConcurrent(provider, sessions);
    const sortedDirect = [...direct.firstText].sort((a, b) => a - b);
    const streamedNote = `a second short turn on each of the ${sessions} sessions, all at once, each session followed on its own stream; first text event (or turn end) seen − input PUT sent; all inputs accepted after ${streamed.accepted.toFixed(0)} ms, last turn_completed seen after ${streamed.wall.toFixed(0)} ms; baseline: the first chunk of ${sessions} concurrent requests straight to the fake provider`;
    return [
      figure(
        "concurrent_turns_1000_wall_ms",
        wall,
        "ms",
        direct.wall,
        `${sessions} sessions, one short turn each, all at once (end seen by polling GET /sessions every 20 ms; workspace checkpoints ${process.env.SKEIN_BENCH_CHECKPOINTS === "0" ? "off" : "on"}); all inputs accepted after ${accepted.toFixed(0)} ms; daemon CPU ${cpu.toFixed(0)} ms; baseline: ${sessions} concurrent requests straight to the fake provider`,
      ),
      figure(
        "concurrent_first_text_p50_ms",
        quantile(streamed.firstText, 0.5),
        "ms",
        quantile(sortedDirect, 0.5),
        streamedNote,
      ),
      figure(
        "concurrent_first_text_p99_ms",
        quantile(streamed.firstText, 0.99),
        "ms",
        quantile(sortedDirect, 0.99),
        "the same at p99; target <= 300 ms with the fake provider answering at once",
      ),
      figure(
        "concurrent_turns_1000_peak_rss_mb",
        peak / 1024,
        "MB",
        emptyRss / 1024,
        "daemon VmHWM; baseline: RSS of the same daemon with no session; target < 300 MB",
      ),
      figure(
        "rss_per_idle_loaded_session_kb",
        halfRss === null ? Number.NaN : (loadedRss - halfRss) / secondHalf,
        "KB",
        (loadedRss - emptyRss) / sessions,
        `RSS growth while the second ${secondHalf} sessions were created (and so loaded), per session; baseline: the growth from the empty daemon over all ${sessions}, one-time costs included; target <= 20 KB`,
      ),
      figure(
        "rss_per_unloaded_session_kb",
        (unloadedRss - emptyRss) / sessions,
        "KB",
        null,
        "a restarted daemon with the sessions on disk only, vs the empty daemon",
      ),
    ];
  } finally {
    await app.close();
  }
}

/**
 * One more short turn on every session at once, each session followed on its stream: the
 * ascending delays from sending its input to its first text event (its turn end when no text
 * event came), when the last input was accepted and when the last turn ended (ms from the start).
 */
async function concurrentFirstText(
  app: DaemonHarness,
  ids: string[],
): Promise<{ firstText: number[]; accepted: number; wall: number }> {
  const followers: Follower[] = [];
  for (let i = 0; i < ids.length; i += 50) {
    followers.push(...(await Promise.all(ids.slice(i, i + 50).map((id) => follow(app, id)))));
  }
  const start = now();
  let accepted = 0;
  const seen = await Promise.all(
    ids.map(async (id, i) => {
      const turn = followers[i]!.nextTurn();
      const sent = now();
      await sendInput(app, id, "again");
      accepted = Math.max(accepted, now() - start);
      const { firstTextAt, completedAt } = await turn;
      return { firstText: (firstTextAt ?? completedAt) - sent, end: completedAt - start };
    }),
  );
  for (const follower of followers) follower.close();
  return {
    firstText: seen.map((s) => s.firstText).sort((a, b) => a - b),
    accepted,
    wall: Math.max(...seen.map((s) => s.end)),
  };
}

/** `count` concurrent requests straight to the provider: the wall time, and each one's first chunk (ms). */
async function directConcurrent(
  provider: FakeProvider,
  count: number,
): Promise<{ wall: number; firstText: number[] }> {
  provider.script = () => text("ok");
  const start = now();
  const firstText = await Promise.all(
    Array.from({ length: count }, async () => {
      const sent = now();
      const response = await fetch(`${provider.baseUrlWith("v1")}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "bench-model",
          stream: true,
          messages: [{ role: "user", content: "x" }],
        }),
      });
      let first = Number.NaN;
      for await (const _chunk of response.body!) if (Number.isNaN(first)) first = now() - sent;
      return first;
    }),
  );
  return { wall: now() - start, firstText };
}

/** VmRSS and VmHWM of a process, in KB. */
function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? "0");
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 500));
}

// ---------------------------------------------------------------------------------------------
// Cold start

/** One daemon start (of `skeinBin`, default this checkout's): wall time to ready and its CPU by then (ms). */
async function startOnce(provider: FakeProvider, skeinBin?: string): Promise<{ wall: number; cpu: number }> {
  const begin = now();
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
    ...(skeinBin === undefined ? {} : { skeinBin }),
  });
  const wall = now() - begin;
  const cpu = cpuMs(app.pid);
  await app.close();
  return { wall, cpu };
}

async function coldStart(provider: FakeProvider): Promise<Figure[]> {
  const runs = 7;
  const starts: number[] = [];
  for (let i = 0; i < runs; i++) starts.push((await startOnce(provider)).wall);
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    const begin = now();
    spawnSync(process.execPath, ["-e", ""]);
    bare.push(now() - begin);
  }
  starts.sort((a, b) => a - b);
  bare.sort((a, b) => a - b);
  const figures = [
    figure(
      "cold_start_ms",
      quantile(starts, 0.5),
      "ms",
      quantile(bare, 0.5),
      'process start → GET /server ready (median of 7; polled every 20 ms); baseline: node -e ""',
    ),
  ];
  const other = process.env.SKEIN_BENCH_COMPARE_BIN;
  if (other === undefined || other === "") return figures;
  // Alternated starts of both builds, so drift of a shared machine hits both alike.
  const mine: { wall: number; cpu: number }[] = [];
  const theirs: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < 11; i++) {
    theirs.push(await startOnce(provider, other));
    mine.push(await startOnce(provider));
  }
  const median = (list: { wall: number; cpu: number }[], pick: "wall" | "cpu") =>
    quantile(
      list.map((start) => start[pick]).sort((a, b) => a - b),
      0.5,
    );
  figures.push(
    figure(
      "cold_start_ms_vs_build",
      median(mine, "wall"),
      "ms",
      median(theirs, "wall"),
      `cold_start_ms of this build against the build of ${other}, 11 alternated starts each (medians)`,
    ),
    figure(
      "cold_start_cpu_ms_vs_build",
      median(mine, "cpu"),
      "ms",
      median(theirs, "cpu"),
      "the daemon's CPU (utime+stime, 10 ms ticks) from its start to ready, same starts",
    ),
  );
  return figures;
}

// ---------------------------------------------------------------------------------------------
// Snapshot and history page cost against log length

/** Entries of a plain conversation: user prompt, tool call, tool result, answer, turn end. */
function conversation(count: number): LogEntry[] {
  const filler = "The quick brown fox jumps over the lazy dog while the agent thinks. ".repeat(5);
  const entries: LogEntry[] = [];
  for (let i = 0; entries.length < count; i++) {
    const ts = Date.now();
    const turn = `turn-${i}`;
    entries.push(
      { kind: "user_input", ts, item: userMessage(`${i}: ${filler}`), turn_id: turn },
      {
        kind: "assistant_items",
        ts,
        items: [toolCall(`call_${i}`, "read_file", JSON.stringify({ path: `/src/${i}.ts` }))],
        turn_id: turn,
      },
      { kind: "tool_results", ts, items: [toolResult(`call_${i}`, filler)], turn_id: turn },
      { kind: "assistant_items", ts, items: [assistantMessage(filler)], turn_id: turn },
    );
  }
  return entries.slice(0, count);
}

/** Grow a stopped daemon's session log to `total` entries, through the daemon's own storage. */
async function growLog(home: string, sessionId: string, total: number): Promise<void> {
  const db = openDaemonDatabase(homePaths(home).database);
  const storage = new SqliteSessionStorage(db, { signer: (await loadSigningKey(home)).signer });
  try {
    const writer = storage.writerFrom(sessionId, await storage.readLog(sessionId));
    const more = conversation(total - 1 - writer.position);
    for (let i = 0; i < more.length; i += 500) await writer.append(more.slice(i, i + 500), {});
  } finally {
    await storage.close();
    db.close();
  }
}

/** Median ms of `runs` GETs of `path` (after one warm-up). */
async function timeGet(app: DaemonHarness, path: string, runs: number): Promise<number> {
  const get = async () => {
    const answer = await rawRequest(app.port, {
      method: "GET",
      path,
      headers: { authorization: `Bearer ${app.token}` },
    });
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
  };
  await get();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const begin = now();
    await get();
    samples.push(now() - begin);
  }
  samples.sort((a, b) => a - b);
  return quantile(samples, 0.5);
}

async function snapshotCost(provider: FakeProvider): Promise<Figure[]> {
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
  });
  try {
    const small = await app.createSession();
    const large = await app.createSession();
    await app.shutdown();
    await growLog(app.home, small, 1_000);
    await growLog(app.home, large, 10_000);
    await app.boot();
    const runs = 30;
    const snapshotSmall = await timeGet(app, `/sessions/${small}`, runs);
    const snapshotLarge = await timeGet(app, `/sessions/${large}`, runs);
    const pageSmall = await timeGet(app, `/sessions/${small}/history?before=500&limit=100`, runs);
    const pageLarge = await timeGet(app, `/sessions/${large}/history?before=5000&limit=100`, runs);
    return [
      figure(
        "snapshot_ms_10k_entries",
        snapshotLarge,
        "ms",
        snapshotSmall,
        `GET /sessions/{id} (tail 100) of a loaded session with a 10,000-entry log, median of ${runs}; baseline: the same with 1,000 entries; target ratio ~1 (cost independent of log length)`,
      ),
      figure(
        "history_page_ms_10k_entries",
        pageLarge,
        "ms",
        pageSmall,
        `GET /sessions/{id}/history (limit 100, in the middle of the log) with 10,000 entries, median of ${runs}; baseline: the same with 1,000 entries; target ratio ~1`,
      ),
    ];
  } finally {
    await app.close();
  }
}
