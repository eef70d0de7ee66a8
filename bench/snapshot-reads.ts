/**
 * `tsx bench/snapshot-reads.ts [get|attach|resume|run-attach|server] [cpu|instructions]`: what
 * reading a session's snapshot costs the daemon, per operation.
 *
 * - server: `GET /server`, the floor of an authenticated JSON read;
 * - get: `GET /sessions/{id}?tail=0` as JSON, on a session with one finished turn;
 * - get-long: the same on a session with TURNS finished turns (default 80);
 * - attach: an SSE attach with `?tail=0` to that session (its first frame read, then closed);
 * - resume: an SSE attach with the session's cursor (`after_generation`/`after_seq`: nothing to
 *   replay), as a client resuming does;
 * - run-attach: a creation whose first input's turn starts there, followed from its cursor to
 *   the turn's end (as `skein run` does), minus the same creation waited for without a watcher.
 *
 * `cpu` (default): the daemon's utime+stime per op over ROUNDS alternated rounds of COUNT ops
 * against this checkout's build and SKEIN_BENCH_COMPARE_BIN's (when set); `instructions`: the
 * daemon under callgrind (bench/callgrind.ts), COUNT ops after WARMUP, this build or
 * SKEIN_PROFILE_BIN's.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { DaemonHarness, rawRequest } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { callgrindControl, callgrindLauncher, lastDumpTotal } from "./callgrind.js";
import { cpuMs, daemonEnv, follow, followedTurn, profiles } from "./daemon-support.js";

const mode = process.argv[2] ?? "get";
const measure = process.argv[3] ?? "cpu";
const warmup = Number(process.env.WARMUP ?? (measure === "cpu" ? 100 : 20));
const count = Number(process.env.COUNT ?? (measure === "cpu" ? 200 : 20));
const rounds = Number(process.env.ROUNDS ?? 4);
const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const auth = (app: DaemonHarness) => ({ authorization: `Bearer ${app.token}` });

/** Open the stream at `path`; `onChunk` gets each chunk's text and says (true) when to close it. */
function readStream(app: DaemonHarness, path: string, onChunk: (chunk: string) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: app.port,
        path,
        headers: { host: `127.0.0.1:${app.port}`, ...auth(app), accept: "text/event-stream" },
      },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          if (!onChunk(chunk)) return;
          req.destroy();
          resolve();
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Open the session's stream at `path`, read its first chunk, then close it. */
const attachOnce = (app: DaemonHarness, path: string): Promise<void> => readStream(app, path, () => true);

/** Follow `path` until a `turn_completed` frame, then close. */
function followToEnd(app: DaemonHarness, path: string): Promise<void> {
  let seen = "";
  return readStream(app, path, (chunk) => {
    seen = (seen + chunk).slice(-4096);
    return seen.includes('"type":"turn_completed"');
  });
}

interface Created {
  id: string;
  cursor: { generation: string; sequence: number };
}

/** Create a session whose first input's turn starts in its creation. */
async function createRunning(app: DaemonHarness): Promise<Created> {
  const id = uuidv7();
  const answer = await rawRequest(app.port, {
    method: "PUT",
    path: `/sessions/${id}`,
    headers: { ...auth(app), "content-type": "application/json", "if-none-match": "*" },
    body: JSON.stringify({
      kind: "new",
      workspace: app.workspace,
      input: { id: uuidv7(), kind: "message", text: "hi" },
    }),
  });
  if (answer.status !== 201) throw new Error(`create: ${answer.status} ${answer.text}`);
  const snapshot = answer.json<{ cursor: Created["cursor"] }>();
  return { id, cursor: snapshot.cursor };
}

/** Wait (asking the provider, not the daemon) until the daemon sent one more model request than `before`. */
async function untilRequested(provider: FakeProvider, before: number): Promise<void> {
  while (provider.requests.length <= before) await settle(5);
}

/** After a turn's model request: time for the daemon to end the turn (longer under valgrind). */
const turnEnd = (): Promise<void> => settle(measure === "instructions" ? 1000 : 30);

/** The operation measured and the session(s) it runs on; `baseline` is subtracted from it. */
async function operations(
  app: DaemonHarness,
  provider: FakeProvider,
): Promise<{ op: (i: number) => Promise<void>; baseline?: (i: number) => Promise<void> }> {
  if (mode === "run-attach") {
    return {
      op: async () => {
        const created = await createRunning(app);
        const query = `after_generation=${created.cursor.generation}&after_seq=${created.cursor.sequence}`;
        await followToEnd(app, `/sessions/${created.id}?${query}`);
        await turnEnd();
      },
      baseline: async () => {
        // Waited for without asking the daemon: a poll would be work the op does not do.
        const before = provider.requests.length;
        await createRunning(app);
        await untilRequested(provider, before);
        await turnEnd();
      },
    };
  }
  const session = await app.createSession();
  const follower = await follow(app, session);
  await followedTurn(app, session, follower, "one turn");
  follower.close();
  if (mode === "server") {
    return {
      op: async () => {
        const answer = await rawRequest(app.port, { method: "GET", path: "/server", headers: auth(app) });
        if (answer.status !== 200) throw new Error(`server: ${answer.status}`);
      },
    };
  }
  if (mode === "get") {
    return {
      op: async () => {
        const answer = await rawRequest(app.port, {
          method: "GET",
          path: `/sessions/${session}?tail=0`,
          headers: auth(app),
        });
        if (answer.status !== 200) throw new Error(`get: ${answer.status}`);
      },
    };
  }
  if (mode === "attach") return { op: () => attachOnce(app, `/sessions/${session}?tail=0`) };
  const snapshot = (
    await rawRequest(app.port, { method: "GET", path: `/sessions/${session}?tail=0`, headers: auth(app) })
  ).json<Created>();
  const query = `after_generation=${snapshot.cursor.generation}&after_seq=${snapshot.cursor.sequence}`;
  return { op: () => attachOnce(app, `/sessions/${session}?${query}`) };
}

async function startDaemon(provider: FakeProvider, bin: string | undefined, launcher?: string[]) {
  return DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
    ...(launcher === undefined ? {} : { launcher, readyTimeoutMs: 300_000 }),
    ...(bin === undefined ? {} : { skeinBin: bin }),
  });
}

/** Daemon CPU ms per op of one daemon of `bin` (minus the baseline's when there is one). */
async function cpuRound(provider: FakeProvider, bin: string | undefined): Promise<number> {
  const app = await startDaemon(provider, bin);
  try {
    const { op, baseline } = await operations(app, provider);
    const per = async (unit: (i: number) => Promise<void>): Promise<number> => {
      for (let i = 0; i < warmup; i++) await unit(i);
      await settle(300);
      const before = cpuMs(app.pid);
      for (let i = 0; i < count; i++) await unit(i);
      await settle(300);
      return (cpuMs(app.pid) - before) / count;
    };
    const cost = await per(op);
    return baseline === undefined ? cost : cost - (await per(baseline));
  } finally {
    await app.close();
  }
}

/** Instructions per op of a daemon under callgrind (minus the baseline's when there is one). */
async function instructionsOf(provider: FakeProvider): Promise<number> {
  const outDir = process.env.CALLGRIND_OUT ?? mkdtempSync(join(tmpdir(), "skein-callgrind-"));
  mkdirSync(outDir, { recursive: true });
  const app = await startDaemon(provider, process.env.SKEIN_PROFILE_BIN, callgrindLauncher(outDir));
  try {
    const { op, baseline } = await operations(app, provider);
    const per = async (unit: (i: number) => Promise<void>): Promise<number> => {
      for (let i = 0; i < warmup; i++) await unit(i);
      await settle(1500);
      callgrindControl(app.pid, "--zero");
      for (let i = 0; i < count; i++) await unit(i);
      await settle(1500);
      callgrindControl(app.pid, "--dump");
      return lastDumpTotal(outDir, app.pid) / count;
    };
    const cost = await per(op);
    const result = baseline === undefined ? cost : cost - (await per(baseline));
    console.log(`callgrind files: ${outDir}`);
    return result;
  } finally {
    await app.close();
  }
}

const provider = await FakeProvider.start();
provider.script = () => text(["Hello", " there."]);
try {
  if (measure === "instructions") {
    console.log(`${mode}: ${((await instructionsOf(provider)) / 1e6).toFixed(3)} M instructions per op`);
  } else {
    const other = process.env.SKEIN_BENCH_COMPARE_BIN;
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      if (other !== undefined && other !== "") theirs.push(await cpuRound(provider, other));
      mine.push(await cpuRound(provider, undefined));
    }
    const mean = (list: number[]) => list.reduce((a, b) => a + b, 0) / list.length;
    const show = (list: number[]) =>
      `${mean(list).toFixed(3)} ms (${list.map((v) => v.toFixed(2)).join(", ")})`;
    console.log(`${mode}: this build ${show(mine)} daemon CPU per op`);
    if (theirs.length > 0) console.log(`${mode}: ${other} ${show(theirs)}`);
  }
} finally {
  await provider.close();
}
