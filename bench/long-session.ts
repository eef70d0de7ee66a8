/**
 * Opening a long session after a daemon restart, on SQLite and on PostgreSQL: the time to its
 * first snapshot (the load included) and to its next turn's model request, and the daemon's RSS
 * above an empty daemon while the session is loaded (its peak while the log's prefix is verified
 * in the background), for a 10,000-entry session (the baseline, same run) and a long one
 * (1,000,000 entries by default, about 0.85 KB each: SKEIN_BENCH_LONG_ENTRIES sets the count;
 * SKEIN_BENCH_LONG_BACKENDS=sqlite or =postgres runs one backend).
 *
 * The long logs are written straight into the daemon's database while it is stopped (a fast
 * path: entries chained, heads and the state checkpoint signed with the daemon's key), as the
 * daemon would have written them: a compaction every 2,000 entries, the last one 100 entries
 * before the end, and the signed state checkpoint the daemon writes at a compaction.
 */
import { readFileSync } from "node:fs";
import { canonicalJson } from "../src/log/canonical-json.js";
import { applyEntry, collectState } from "../src/log/collect-state.js";
import type { LogEntry } from "../src/log/entries.js";
import { hashAfterValidPrev } from "../src/log/entry-hash.js";
import { HeadSigner } from "../src/log/head-signer.js";
import { PgCheckpointRecords } from "../src/log/pg-checkpoint-records.js";
import { PgStore } from "../src/log/pg-store.js";
import type { RestoredState } from "../src/log/restored-state.js";
import { SqliteCheckpointRecords } from "../src/log/sqlite-checkpoint-records.js";
import { SqliteStore } from "../src/log/sqlite-store.js";
import { checkpointOf, type StateCheckpoint } from "../src/log/state-checkpoint.js";
import type { LogHead, Store } from "../src/log/store.js";
import { assistantMessage, toolCall, toolResult, userMessage } from "../src/model/items.js";
import { type DaemonHarness, DaemonHarness as Harness } from "../test/e2e/support/daemon-harness.js";
import { profileFor } from "../test/e2e/support/fixture.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { type Figure, figure, writeReport } from "./report.js";

const baselineEntries = 10_000;
const longEntries = Number(process.env.SKEIN_BENCH_LONG_ENTRIES ?? 1_000_000);
const compactionEvery = 2_000;
const lastCompactionBeforeEnd = 100;

/** One row to insert: position, hash, prev_hash, kind, canonical text. */
type Row = [number, string, string, string, string];

/** Where the fast path writes: a batch of rows, then the signed head and checkpoint. */
interface Sink {
  store: Store;
  insert(sessionId: string, rows: Row[]): Promise<void>;
  finish(sessionId: string, head: LogHead, checkpoint: StateCheckpoint, signer: HeadSigner): Promise<void>;
  close(): Promise<void>;
}

async function sinkFor(app: DaemonHarness, signer: HeadSigner): Promise<Sink> {
  if (app.pg === null) {
    const store = new SqliteStore(app.dbPath, { signer });
    const insertRow = store.db.prepare(
      "INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES (?, ?, ?, ?, ?, ?, 0)",
    );
    const insertAll = store.db.transaction((sessionId: string, rows: Row[]) => {
      for (const row of rows) insertRow.run(sessionId, ...row);
    });
    return {
      store,
      insert: async (sessionId, rows) => insertAll(sessionId, rows),
      async finish(sessionId, head, checkpoint) {
        const signed = signer.sign(sessionId, head.position, head.hash);
        store.db
          .prepare(
            "UPDATE transcript_heads SET position = ?, hash = ?, signature = ?, key_id = ? WHERE session = ?",
          )
          .run(head.position, head.hash, signed.signature, signed.key_id, sessionId);
        new SqliteCheckpointRecords(store.db, signer).write(store.db, sessionId, checkpoint);
      },
      close: () => store.close(),
    };
  }
  const store = await PgStore.open({ connectionString: app.pg.url, max: 2 }, { signer });
  return {
    store,
    async insert(sessionId, rows) {
      for (let from = 0; from < rows.length; from += 500) {
        const chunk = rows.slice(from, from + 500);
        const values: unknown[] = [];
        const tuples = chunk.map((row, i) => {
          values.push(sessionId, ...row);
          const at = i * 6;
          return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, 0)`;
        });
        await store.pool.query(
          `INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES ${tuples.join(", ")}`,
          values,
        );
      }
    },
    async finish(sessionId, head, checkpoint) {
      const signed = signer.sign(sessionId, head.position, head.hash);
      await store.pool.query(
        "UPDATE transcript_heads SET position = $1, hash = $2, signature = $3, key_id = $4 WHERE session = $5",
        [head.position, head.hash, signed.signature, signed.key_id, sessionId],
      );
      const client = await store.pool.connect();
      try {
        await new PgCheckpointRecords(store.pool, signer).write(client, sessionId, checkpoint);
      } finally {
        client.release();
      }
    },
    close: () => store.close(),
  };
}

const prose = "The agent reads the code, runs the tests and explains what it found in plain words. ";

/** Whether the entry at `position` of a log of `end` entries is a compaction (one every 2,000, the last 100 before the end). */
function isCompaction(position: number, end: number): boolean {
  const last = end - lastCompactionBeforeEnd;
  return position === last || (position % compactionEvery === 0 && position < last);
}

/**
 * The entry at `position` of a realistic session: turns of seven entries (`slot` counts the
 * entries of turns so far, so a compaction falls between two entries of a turn, never in place
 * of one: every result follows its call), a compaction every 2,000 positions keeping the last
 * two turns from `keepFrom` (a turn's start: a compaction never cuts a call from its result).
 */
function entryAt(position: number, end: number, slot: number, turn: number, keepFrom: number): LogEntry {
  const ts = 1_760_000_000_000 + position;
  if (isCompaction(position, end)) {
    return {
      kind: "compaction",
      ts,
      summary: `Summary at ${position}: ${prose.repeat(8)}`,
      first_kept_position: keepFrom,
      before_tokens: 90_000,
      after_tokens: 4_000,
    };
  }
  const call = `call_${slot - (slot % 7)}`;
  switch (slot % 7) {
    case 0:
      return { kind: "user_input", ts, item: userMessage(`Turn ${turn}: ${prose.repeat(2)}`) };
    case 1:
      return {
        kind: "assistant_items",
        ts,
        items: [toolCall(call, "bash", JSON.stringify({ command: `grep -rn x${turn} src` }))],
      };
    case 2:
      return {
        kind: "tool_results",
        ts,
        items: [toolResult(call, `src/file${turn}.ts:1: ${prose.repeat(48)}`)],
      };
    case 3:
      return { kind: "assistant_items", ts, items: [assistantMessage(prose.repeat(12))] };
    case 4:
      return {
        kind: "llm_usage",
        ts,
        history_len: 4,
        input_total_tokens: 30_000 + (turn % 1000),
        cache_read_tokens: 20_000,
        cache_write_tokens: 0,
        output_tokens: 400,
      };
    case 5:
      return { kind: "turn_end", ts, turn_count: turn };
    default:
      return { kind: "run_outcome", ts, outcome: { type: "finished" }, interrupted: false };
  }
}

/** Grow `sessionId` (a session the daemon created, daemon stopped) to `size` entries. */
async function grow(sink: Sink, sessionId: string, size: number, signer: HeadSigner): Promise<number> {
  const existing = await sink.store.readAll(sessionId);
  const state: RestoredState = collectState(existing);
  let prev = existing[existing.length - 1]!.hash;
  let checkpoint: StateCheckpoint | null = null;
  let rows: Row[] = [];
  let bytes = 0;
  let slot = 0;
  const turnStarts = [existing.length, existing.length];
  for (let position = existing.length; position < size; position++) {
    const entry = entryAt(position, size, slot, state.request_count + 1, turnStarts[0]!);
    if (entry.kind !== "compaction") slot++;
    if (entry.kind === "user_input") {
      turnStarts.push(position);
      turnStarts.shift();
    }
    const text = canonicalJson(entry);
    bytes += text.length;
    const hash = hashAfterValidPrev(prev, text);
    rows.push([position, hash, prev, entry.kind, text]);
    applyEntry(state, entry);
    prev = hash;
    if (position === size - lastCompactionBeforeEnd) checkpoint = checkpointOf(state, { position, hash });
    if (rows.length === 5_000) {
      await sink.insert(sessionId, rows);
      rows = [];
    }
  }
  await sink.insert(sessionId, rows);
  await sink.finish(sessionId, { position: size - 1, hash: prev }, checkpoint!, signer);
  return bytes;
}

/** The process's resident set (KB → MB). */
function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/** Sample RSS until the daemon logs that the session's prefix verified; the peak, and how long that took. */
async function peakRssUntilVerified(
  app: DaemonHarness,
  sessionId: string,
  limitMs = 1_800_000,
): Promise<{ peak: number; verifiedMs: number }> {
  const pid = app.pid;
  let peak = rssMb(pid);
  const deadline = Date.now() + limitMs;
  const done = new RegExp(`"session_id":"${sessionId}"[^\n]*"ms":(\\d+)[^\n]*prefix verified`);
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    peak = Math.max(peak, rssMb(pid));
    const found = done.exec(app.readLog());
    if (found !== null) return { peak, verifiedMs: Number(found[1]) };
  }
  throw new Error(`the prefix of ${sessionId} was not verified within ${limitMs} ms`);
}

interface Opened {
  snapshotMs: number;
  requestMs: number;
  rssAboveEmptyMb: number;
  megabytes: number;
  /** How long the background check of the prefix took (from its start, a second after the load). */
  verifiedMs: number;
}

/** A session grown to `size` entries, opened after a restart: first snapshot, next request, RSS. */
async function openLong(
  app: DaemonHarness,
  fake: FakeProvider,
  signer: HeadSigner,
  size: number,
): Promise<Opened> {
  const sessionId = await app.createSession();
  await app.turn(sessionId, "hello");
  await app.shutdown();
  const sink = await sinkFor(app, signer);
  const generated = Date.now();
  const bytes = await grow(sink, sessionId, size, signer);
  await sink.close();
  console.log(
    `  ${size} entries (${(bytes / 1e6).toFixed(0)} MB) written in ${((Date.now() - generated) / 1000).toFixed(1)} s`,
  );
  await app.boot();
  // Warm up (code loaded, connections opened) on a new small session: the empty daemon's RSS is
  // taken after it, so what is measured is what the long session costs.
  await app.turn(await app.createSession(), "warm up");
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const emptyRss = rssMb(app.pid);
  const started = performance.now();
  const snapshot = await app.api(`/sessions/${sessionId}`);
  if (snapshot.status !== 200) throw new Error(`snapshot: ${snapshot.status} ${snapshot.text}`);
  const snapshotMs = performance.now() - started;
  const requests = fake.requests.length;
  const sent = performance.now();
  const waitRequest = (async () => {
    while (fake.requests.length === requests) await new Promise((resolve) => setTimeout(resolve, 1));
    return performance.now() - sent;
  })();
  const peak = peakRssUntilVerified(app, sessionId);
  await app.prompt(sessionId, "and now?");
  const requestMs = await waitRequest;
  await app.idle(sessionId, 600_000);
  const { peak: peakRss, verifiedMs } = await peak;
  const rssAboveEmptyMb = peakRss - emptyRss;
  const verified = await app.api(`/sessions/${sessionId}`);
  if (verified.status !== 200)
    throw new Error(`after the background check: ${verified.status} ${verified.text}`);
  return { snapshotMs, requestMs, rssAboveEmptyMb, megabytes: bytes / 1e6, verifiedMs };
}

async function backendFigures(database: "sqlite" | "postgres"): Promise<Figure[]> {
  const fake = await FakeProvider.start();
  const signer = HeadSigner.generate();
  const app = await Harness.start({
    providers: profileFor(fake),
    database,
    signingKeyPem: signer.privateKeyPem(),
  });
  try {
    console.log(`${database}:`);
    const small = await openLong(app, fake, signer, baselineEntries);
    const long = await openLong(app, fake, signer, longEntries);
    const size = `${longEntries} entries (${long.megabytes.toFixed(0)} MB) vs ${baselineEntries} (${small.megabytes.toFixed(0)} MB)`;
    return [
      figure(
        `long_session_first_snapshot_${database}`,
        long.snapshotMs,
        "ms",
        small.snapshotMs,
        `${size}: GET /sessions/{id} right after a restart and a warm-up turn on another session (the session's load included); target ratio <= 10; lower is better`,
      ),
      figure(
        `long_session_next_request_${database}`,
        long.requestMs,
        "ms",
        small.requestMs,
        `${size}: PUT of the next input until the fake provider receives the model request; target ratio <= 10`,
      ),
      figure(
        `long_session_rss_above_empty_${database}`,
        long.rssAboveEmptyMb,
        "MB",
        small.rssAboveEmptyMb,
        `${size}: peak RSS while loaded (the next turn and the prefix's background verification included) above the same daemon just booted and warmed up on a small session; target <= 50 MB`,
      ),
      figure(
        `long_session_prefix_verified_${database}`,
        long.verifiedMs / 1000,
        "s",
        small.verifiedMs / 1000,
        `${size}: the background verification of the log before the state checkpoint (paced to a quarter of the main thread), from its start to the log line saying it verified`,
      ),
    ];
  } finally {
    await app.close();
    await fake.close();
  }
}

export async function run(): Promise<void> {
  const backends = (process.env.SKEIN_BENCH_LONG_BACKENDS ?? "sqlite,postgres").split(",");
  const figures: Figure[] = [];
  for (const backend of ["sqlite", "postgres"] as const) {
    if (backends.includes(backend)) figures.push(...(await backendFigures(backend)));
  }
  writeReport("long-session", figures);
}
