/**
 * Part `scale` of the daemon suite (issue 30's target): many sessions in the database, many of
 * them loaded and idle. Sessions are written through the storage layer (a row, a session_start
 * entry, a preview: what `PUT /sessions/{id}` writes) rather than created over HTTP, so filling
 * 100,000 takes seconds; the daemon then boots on that home and loads some of them by reading
 * their snapshots. Figures: the daemon's RSS, `GET /sessions` page latency, and one more
 * turn's first text, each with its baseline from the same run.
 */
import { readFileSync } from "node:fs";
import { v7 as uuidv7 } from "uuid";
import { previewOf } from "../src/daemon/history/preview.js";
import { loadSigningKey } from "../src/daemon/process/signing-key.js";
import { openDaemonDatabase } from "../src/daemon/storage/database.js";
import { openPgDaemonDatabase } from "../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../src/daemon/storage/pg-session-storage.js";
import type { SessionStorage } from "../src/daemon/storage/session-storage.js";
import { SqliteSessionStorage } from "../src/daemon/storage/sqlite-session-storage.js";
import { homePaths } from "../src/home/home.js";
import type { LogEntry } from "../src/log/entries.js";
import { DaemonHarness, rawRequest } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import type { FakeProvider } from "../test/support/fake-provider/server.js";
import { daemonEnv, follow, followedTurn, now, profiles } from "./daemon-support.js";
import { type Figure, figure, quantile } from "./report.js";

/** How big the run is: sessions in the database, sessions loaded, samples per latency figure. */
export interface ScaleSize {
  sessions: number;
  loaded: number;
  baselineSessions: number;
  pageSamples: number;
  turns: number;
}

/** Page latencies (ms, ascending) of the default listing and of the `scope=top` filter. */
interface PageTimes {
  all: number[];
  top: number[];
}

/** Run the part: fill, boot, measure unloaded, load, measure loaded. */
export async function scaleFigures(
  provider: FakeProvider,
  size: ScaleSize,
  database: "sqlite" | "postgres" = "sqlite",
): Promise<Figure[]> {
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    database,
    // Idle actors stay loaded for the whole run (the default unloads them after an hour anyway).
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn", SKEIN_UNLOAD_SECONDS: "604800" }),
  });
  try {
    const turnSession = await app.createSession();
    await app.shutdown();
    const ids: string[] = [];
    ids.push(...(await fillSessions(app, size.baselineSessions - 1)));
    await app.boot();
    const small = await pageTimes(app, size.pageSamples);
    await app.shutdown();
    const fillStart = now();
    ids.push(...(await fillSessions(app, size.sessions - size.baselineSessions)));
    const fillMs = now() - fillStart;
    await app.boot();
    await settle();
    const emptyRss = rssKb(app.pid);
    const coldTurns = await firstTextTimes(app, provider, turnSession, size.turns);
    const coldPages = await pageTimes(app, size.pageSamples);
    const loadStart = now();
    await loadSessions(app, ids.slice(-size.loaded));
    const loadMs = now() - loadStart;
    await settle();
    const loadedRss = rssKb(app.pid);
    const loadedPages = await pageTimes(app, size.pageSamples);
    const loadedTurns = await firstTextTimes(app, provider, turnSession, size.turns);
    const label = `${size.sessions / 1000}k_sessions_${size.loaded / 1000}k_loaded${database === "sqlite" ? "" : "_postgres"}`;
    const setting = `${size.sessions} sessions in ${database === "sqlite" ? "SQLite" : "PostgreSQL"} (filled in ${(fillMs / 1000).toFixed(1)} s through the storage layer), ${size.loaded} loaded by GET /sessions/{id} in ${(loadMs / 1000).toFixed(1)} s`;
    return [
      figure(
        `scale_rss_mb_${label}`,
        loadedRss / 1024,
        "MB",
        emptyRss / 1024,
        `daemon VmRSS, ${setting}; baseline: the same daemon before any was loaded; target <= 400 MB`,
      ),
      figure(
        `scale_rss_per_loaded_session_kb_${label}`,
        (loadedRss - emptyRss) / size.loaded,
        "KB",
        null,
        "RSS growth from loading them, per loaded idle session",
      ),
      ...pageFigures(label, loadedPages, coldPages, small, size),
      figure(
        `scale_turn_first_text_p50_ms_${label}`,
        quantile(loadedTurns, 0.5),
        "ms",
        quantile(coldTurns, 0.5),
        `POST input -> first text event on the stream, one session, ${size.turns} short turns; baseline: the same daemon and session before the ${size.loaded} were loaded; target: unchanged within noise`,
      ),
      figure(
        `scale_turn_first_text_p99_ms_${label}`,
        quantile(loadedTurns, 0.99),
        "ms",
        quantile(coldTurns, 0.99),
        "the same at p99",
      ),
    ];
  } finally {
    await app.close();
  }
}

function pageFigures(
  label: string,
  loaded: PageTimes,
  cold: PageTimes,
  small: PageTimes,
  size: ScaleSize,
): Figure[] {
  // The default listing and the `scope=top` filter: p50 and p99 each.
  return (["all", "top"] as const).flatMap((kind) => {
    const name = kind === "all" ? "scale_list_page" : "scale_list_top_page";
    const path = kind === "all" ? "/sessions" : "/sessions?scope=top";
    const at = (q: number) => [quantile(loaded[kind], q), "ms", quantile(small[kind], q)] as const;
    return [
      figure(
        `${name}_p50_ms_${label}`,
        ...at(0.5),
        `GET ${path} (default page), ${size.pageSamples} samples with ${size.loaded} loaded (with none loaded: p50 ${quantile(cold[kind], 0.5).toFixed(2)} ms, p99 ${quantile(cold[kind], 0.99).toFixed(2)} ms); baseline: the same with ${size.baselineSessions} sessions in the database`,
      ),
      figure(`${name}_p99_ms_${label}`, ...at(0.99), "the same at p99; target <= 50 ms"),
    ];
  });
}

/**
 * Write `count` new sessions into the daemon's database (the daemon stopped), each as
 * `PUT /sessions/{id}` writes one: its row, its session_start entry (signed head) and its
 * preview. The connection skips waiting for the disk (SQLite `synchronous = OFF`, PostgreSQL
 * `synchronous_commit = off`): this is set-up, not a figure. Returns their ids, oldest first.
 */
export async function fillSessions(app: DaemonHarness, count: number): Promise<string[]> {
  const signer = (await loadSigningKey(app.home)).signer;
  let storage: SessionStorage;
  let closeDb: () => void = () => undefined;
  let analyze: () => Promise<unknown> = async () => undefined;
  if (app.pg === null) {
    const db = openDaemonDatabase(homePaths(app.home).database);
    db.pragma("synchronous = OFF");
    storage = new SqliteSessionStorage(db, { signer });
    closeDb = () => db.close();
  } else {
    const pool = await openPgDaemonDatabase(app.pg.url, { max: 8 });
    pool.on("connect", (client) => void client.query("SET synchronous_commit = off").catch(() => undefined));
    storage = new PgSessionStorage(pool, { signer });
    // Fresh statistics, as autovacuum keeps them on a database that grew over time: planned on
    // those of the empty table, `scope=top` reads every row through a bitmap scan and sorts.
    analyze = () => pool.query("ANALYZE sessions");
  }
  const start = Date.now() - count;
  const ids = Array.from({ length: count }, () => uuidv7());
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const createdAt = start + i;
      const entries: LogEntry[] = [
        {
          kind: "session_start",
          ts: createdAt,
          system_prompt: "You are a bench agent.",
          config: {},
          history: [],
        },
      ];
      const preview = previewOf(entries.map((entry, position) => ({ entry, position })));
      await storage.createSession(
        { id: ids[i]!, workspace: app.workspace, createdAt, mcpServers: [] },
        entries,
        preview,
      );
    }
  };
  try {
    // SQLite writes one at a time anyway; PostgreSQL's round trips overlap on a few connections.
    await Promise.all(Array.from({ length: app.pg === null ? 1 : 6 }, lane));
    await analyze();
  } finally {
    await storage.close();
    closeDb();
  }
  return ids;
}

/** Load each session's actor (a snapshot read loads it), a few at a time. */
export async function loadSessions(app: DaemonHarness, ids: readonly string[]): Promise<void> {
  const lanes = 8;
  let next = 0;
  const lane = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      await get(app, `/sessions/${id}?tail=0`);
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}

/** Ascending latencies of `samples` reads of the default listing and of `scope=top`, alternated. */
async function pageTimes(app: DaemonHarness, samples: number): Promise<PageTimes> {
  const times: PageTimes = { all: [], top: [] };
  await get(app, "/sessions");
  await get(app, "/sessions?scope=top");
  for (let i = 0; i < samples; i++) {
    for (const [path, into] of [
      ["/sessions", times.all],
      ["/sessions?scope=top", times.top],
    ] as const) {
      const begin = now();
      await get(app, path);
      into.push(now() - begin);
    }
  }
  times.all.sort((a, b) => a - b);
  times.top.sort((a, b) => a - b);
  return times;
}

/** Ascending ms from sending an input to its first text event on the session's stream. */
async function firstTextTimes(
  app: DaemonHarness,
  provider: FakeProvider,
  sessionId: string,
  turns: number,
): Promise<number[]> {
  provider.script = () => text(["first", " done"]);
  const follower = await follow(app, sessionId);
  const times: number[] = [];
  try {
    for (let i = 0; i < turns; i++) {
      const sent = now();
      const seen = await followedTurn(app, sessionId, follower, `turn ${i}`);
      times.push((seen.firstTextAt ?? seen.completedAt) - sent);
    }
  } finally {
    follower.close();
  }
  return times.sort((a, b) => a - b);
}

async function get(app: DaemonHarness, path: string): Promise<void> {
  const answer = await rawRequest(app.port, {
    method: "GET",
    path,
    headers: { authorization: `Bearer ${app.token}` },
  });
  if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
}

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? "0");
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1_000));
}
