/**
 * What the daemon benches share (bench/daemon.ts and its parts, bench/profile-daemon.ts): the
 * wall clock the fake provider also stamps with, the provider profile, a process's CPU time and
 * resident memory, a light follower of a session's stream that timestamps each turn's first
 * text and its `turn_completed`, and the group-commit counts a daemon logs when it stops.
 */
import { closeSync, fsync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { v7 as uuidv7 } from "uuid";
import { type DaemonHarness, rawRequest } from "../test/e2e/support/daemon-harness.js";
import type { FakeProvider } from "../test/support/fake-provider/server.js";
import { readSseFrames } from "./sse-frames.js";

/** Wall-clock ms with sub-ms precision; the same clock as the fake provider's `receivedAt`. */
export const now = (): number => performance.timeOrigin + performance.now();

/** A delta text carrying the moment it was written (`|<ms>`), for delivery delays. */
export const stamp = (): string => `|${now().toFixed(3)}`;

/** The daemon's provider profiles: one Chat Completions profile on the fake provider. */
export function profiles(provider: FakeProvider) {
  return {
    bench: {
      protocol: "chat_completions" as const,
      baseUrl: provider.baseUrlWith("v1"),
      apiKey: "bench-key",
      model: "bench-model",
    },
  };
}

/**
 * The environment of a bench daemon: `env`, plus SKEIN_CHECKPOINTS=0 when this process has
 * SKEIN_BENCH_CHECKPOINTS=0 (every daemon of the suite then runs without workspace checkpoints,
 * to see the daemon's own limit apart from the git processes they spawn), plus this process's
 * SKEIN_V8_FLAGS when set (the daemon's V8 flags instead of its defaults, for a before/after).
 */
export function daemonEnv(env: Record<string, string>): Record<string, string> {
  const v8Flags = process.env.SKEIN_V8_FLAGS;
  return {
    ...(process.env.SKEIN_BENCH_CHECKPOINTS === "0" ? { SKEIN_CHECKPOINTS: "0" } : {}),
    ...(v8Flags === undefined ? {} : { SKEIN_V8_FLAGS: v8Flags }),
    ...env,
  };
}

/** A process's resident memory now and at its peak, in MB (VmRSS, VmHWM of /proc/<pid>/status). */
export function rssMb(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? "0") / 1024;
  return { now: mb("VmRSS"), peak: mb("VmHWM") };
}

/** utime + stime of a process, in ms (from /proc/<pid>/stat, in clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  return cpuOf(pid).own;
}

/** A process's CPU time (ms): its own, and that of the child processes it waited for. */
export interface ProcessCpu {
  own: number;
  children: number;
}

/**
 * utime + stime of a process and cutime + cstime of its waited-for children (the git processes
 * of workspace checkpoints, say), in ms (from /proc/<pid>/stat, in clock ticks of 10 ms).
 */
export function cpuOf(pid: number): ProcessCpu {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ").map(Number);
  const ms = (ticks: number) => (ticks * 1000) / 100;
  return { own: ms(fields[11]! + fields[12]!), children: ms(fields[13]! + fields[14]!) };
}

/** Where a bench client reaches a server of sessions: a daemon, or the turn floor (bench/turn-floor.ts). */
export type Endpoint = Pick<DaemonHarness, "port" | "token">;

/**
 * Submit a message input with a bare request (the harness's `prompt` also checks the answer
 * against the OpenAPI document, which would delay this process reading the stream).
 */
export async function sendInput(app: Endpoint, sessionId: string, text: string): Promise<void> {
  const answer = await rawRequest(app.port, {
    method: "PUT",
    path: `/sessions/${sessionId}/inputs/${uuidv7()}`,
    headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "message", text }),
  });
  if (answer.status !== 202) throw new Error(`input to ${sessionId}: ${answer.status} ${answer.text}`);
}

/** When a follower saw one turn's first text event and its `turn_completed` (wall-clock ms), and what it read. */
export interface TurnSeen {
  firstTextAt: number | null;
  completedAt: number;
  /** Bytes of the turn's stream read, up to the chunk with `turn_completed` (SSE framing included). */
  bytes: number;
  /** Stream frames (`data:` lines) in those chunks. */
  frames: number;
}

/** A light follower of one session's stream. */
export interface Follower {
  /** Resolves at the next `turn_completed` (call it before the input is sent). */
  nextTurn(): Promise<TurnSeen>;
  close(): void;
}

/** Send a message input to a followed session and wait until its follower sees the turn end. */
export async function followedTurn(
  app: Endpoint,
  sessionId: string,
  follower: Follower,
  text: string,
): Promise<TurnSeen> {
  const completed = follower.nextTurn();
  await sendInput(app, sessionId, text);
  return completed;
}

const textMark = '"type":"text"';
const dataMark = "data: ";

/** How many times `mark` occurs in `text` (a mark cut by a chunk boundary is missed: a rare undercount). */
function countOf(text: string, mark: string): number {
  let count = 0;
  for (let at = text.indexOf(mark); at >= 0; at = text.indexOf(mark, at + mark.length)) count++;
  return count;
}
const completedMark = '"type":"turn_completed"';

/**
 * Follow a session's stream scanning raw bytes for the marks (no JSON parsing, so a thousand
 * followers cost this process little). Resolves once the first frame arrived.
 */
export function follow(app: Endpoint, sessionId: string): Promise<Follower> {
  return new Promise((attached, failed) => {
    let waiting: ((seen: TurnSeen) => void) | null = null;
    let firstTextAt: number | null = null;
    let bytes = 0;
    let frames = 0;
    // The end of the last chunk, so a mark cut in two by a chunk boundary is still found;
    // cleared once a turn is seen so its mark never counts for the next turn.
    let tail = "";
    let first = true;
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: app.port,
        path: `/sessions/${sessionId}?tail=0`,
        headers: {
          host: `127.0.0.1:${app.port}`,
          authorization: `Bearer ${app.token}`,
          accept: "text/event-stream",
        },
      },
      (res) => {
        res.setEncoding("latin1");
        res.on("data", (chunk: string) => {
          const at = now();
          const text = tail + chunk;
          if (first) {
            // The first frame is the attach snapshot: nothing in it belongs to a turn to come.
            first = false;
            tail = "";
            attached({
              nextTurn: () =>
                new Promise<TurnSeen>((resolve) => {
                  firstTextAt = null;
                  bytes = 0;
                  frames = 0;
                  waiting = resolve;
                }),
              close: () => req.destroy(),
            });
            return;
          }
          if (waiting === null) {
            // Nothing is armed: these bytes precede the next turn's input, none of them is its.
            tail = "";
            return;
          }
          if (firstTextAt === null && text.includes(textMark)) firstTextAt = at;
          bytes += chunk.length;
          frames += countOf(chunk, dataMark);
          if (text.includes(completedMark)) {
            const resolve = waiting;
            waiting = null;
            tail = "";
            resolve({ firstTextAt, completedAt: at, bytes, frames });
            return;
          }
          tail = text.slice(-32);
        });
      },
    );
    req.on("error", failed);
    req.end();
  });
}

/** The counts a daemon logs when it stops; `fsyncs` null when the daemon does not log them. */
export interface CommitStats {
  transactions: number;
  requests: number;
  fsyncs: number | null;
  /** SQL statements run, when the daemon counted them (SKEIN_TEST_COUNT_STATEMENTS=1). */
  statements: number | null;
  /** Pages written to SQLite's write-ahead log, when the daemon counted them (the same variable). */
  walFrames: number | null;
}

/**
 * The group-commit counts of the last `stopped` line of a daemon log (logged at level info).
 * Throws when there is none: the bench needs them.
 */
export function commitStatsOf(log: string): CommitStats {
  const lines = log.split("\n").filter((line) => line.includes('"groupCommit"'));
  const line = lines[lines.length - 1];
  const commits =
    line === undefined ? null : /"groupCommit":\{"transactions":(\d+),"requests":(\d+)/.exec(line);
  if (line === undefined || commits === null)
    throw new Error(
      `no groupCommit stats in the daemon log (is SKEIN_LOG_LEVEL above info?)\n${log.slice(-2000)}`,
    );
  const fsyncs = /"fsyncs":(\d+)/.exec(line);
  const statements = /"statements":(\d+)/.exec(line);
  const walFrames = /"walFrames":(\d+)/.exec(line);
  return {
    transactions: Number(commits[1]),
    requests: Number(commits[2]),
    fsyncs: fsyncs === null ? null : Number(fsyncs[1]),
    statements: statements === null ? null : Number(statements[1]),
    walFrames: walFrames === null ? null : Number(walFrames[1]),
  };
}

export interface Watcher {
  /** Resolves when the watcher saw `turn_completed`. */
  done: Promise<void>;
  /** The `id:` (generation.cursor) of the last frame received. */
  position(): string;
  close(): void;
}

/**
 * Attach an SSE watcher. The measuring one (`delays` given) parses every frame and records the
 * delay of every delta; the others only follow the `id:` lines and spot `turn_completed`, so the
 * figure is the daemon's delivery, not this process parsing JSON for a hundred clients.
 */
export function watch(app: DaemonHarness, sessionId: string, delays: number[] | null): Promise<Watcher> {
  return new Promise((attached, failed) => {
    let cursor = "";
    let finish: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: app.port,
        path: `/sessions/${sessionId}?tail=0`,
        headers: {
          host: `127.0.0.1:${app.port}`,
          authorization: `Bearer ${app.token}`,
          accept: "text/event-stream",
        },
      },
      (res) => {
        const attach = () => attached({ done, position: () => cursor, close: () => req.destroy() });
        if (delays === null) {
          // Light client: scan raw bytes for frame ids and the turn's end, parse nothing.
          let tail = "";
          let first = true;
          res.setEncoding("latin1");
          res.on("data", (chunk: string) => {
            const text = tail + chunk;
            const id = text.lastIndexOf("id: ");
            const idEnd = id < 0 ? -1 : text.indexOf("\n", id);
            if (idEnd > 0) cursor = text.slice(id + 4, idEnd);
            if (first && text.includes("\n\n")) {
              first = false;
              attach();
            }
            if (text.includes('"type":"turn_completed"')) finish();
            tail = text.slice(-64);
          });
          return;
        }
        let first = true;
        readSseFrames(res, (frame, data) => {
          if (frame.startsWith("id: ")) cursor = frame.slice(4, frame.indexOf("\n"));
          if (first) {
            first = false;
            attach();
          }
          const batch = JSON.parse(data) as {
            events: { type: string; data: { text?: string } }[];
          };
          const receivedAt = now();
          for (const event of batch.events) {
            if (event.type === "text" && event.data.text !== undefined) {
              for (const part of event.data.text.split("|")) {
                if (part !== "") delays.push(receivedAt - Number.parseFloat(part));
              }
            } else if (event.type === "turn_completed") {
              finish();
            }
          }
        });
      },
    );
    req.on("error", failed);
    req.end();
  });
}

const fsyncAsync = promisify(fsync);

/**
 * This disk's own fsync times (ms, sorted), as the daemon's log sync makes them: a 4 KiB page
 * overwritten in a small file in `dir`, then `fsync` on libuv's thread pool, one every 5 ms (a
 * turn's pace: back-to-back fsyncs here take about half as long as spaced ones). A baseline for
 * figures that wait on a commit's fsync.
 */
export async function bareFsyncMs(dir: string, samples: number): Promise<number[]> {
  const path = join(dir, "bench-fsync.tmp");
  const fd = openSync(path, "w+");
  const page = Buffer.alloc(4096, 7);
  const times: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      writeSync(fd, page, 0, page.length, (i % 64) * page.length);
      const start = performance.now();
      await fsyncAsync(fd);
      times.push(performance.now() - start);
    }
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return times.sort((a, b) => a - b);
}
