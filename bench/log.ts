/**
 * Session-log benchmarks: durable append throughput of both stores against raw writes of the
 * same bytes, group commit, and restore (read + verify + replay) against plain JSON.parse.
 * Everything runs in a temp dir on the same disk; each baseline is measured in the same run.
 */
import { closeSync, fdatasync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { v7 as uuidv7 } from "uuid";
import { canonicalJson } from "../src/log/canonical-json.js";
import { collectState } from "../src/log/collect-state.js";
import type { HashedEntry, LogEntry } from "../src/log/entries.js";
import { buildChain, hashAfterValidPrev } from "../src/log/entry-hash.js";
import { FsStore } from "../src/log/fs-store.js";
import { encodeRecordLine } from "../src/log/jsonl-record.js";
import { createTranscriptSchema, SqliteStore } from "../src/log/sqlite-store.js";
import { assistantMessage, toolCall, toolResult, userMessage } from "../src/model/items.js";
import type { Figure } from "./report.js";
import { figure, writeReport } from "./report.js";

const fdatasyncAsync = promisify(fdatasync);

const ENTRIES = 10_000;
const SESSIONS = 100;

/** A realistic mix of ~500-byte entries after a session_start. */
function sampleLog(count: number, seed = 0): LogEntry[] {
  const filler = "The quick brown fox jumps over the lazy dog while the agent thinks. ";
  const text = (i: number) => `${i + seed}: ${filler.repeat(6)}`.slice(0, 400);
  const entries: LogEntry[] = [
    {
      kind: "session_start",
      ts: Date.now(),
      system_prompt: "You are a helpful agent.",
      config: { max_tokens: 4096 },
      history: [],
    },
  ];
  for (let i = 1; i < count; i++) {
    const ts = 1_713_050_000_000 + i;
    switch (i % 4) {
      case 0:
        entries.push({ kind: "user_input", ts, item: userMessage(text(i)), turn_id: `turn-${i}` });
        break;
      case 1:
        entries.push({
          kind: "assistant_items",
          ts,
          items: [assistantMessage(text(i))],
          turn_id: `turn-${i}`,
        });
        break;
      case 2:
        entries.push({
          kind: "assistant_items",
          ts,
          items: [
            toolCall(
              `call_${i}`,
              "read_file",
              JSON.stringify({ path: `/src/${i}.ts`, note: text(i).slice(0, 330) }),
            ),
          ],
        });
        break;
      default:
        entries.push({ kind: "tool_results", ts, items: [toolResult(`call_${i - 1}`, text(i))] });
    }
  }
  return entries;
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

interface Row {
  session: string;
  position: number;
  hash: string;
  prevHash: string | null;
  kind: string;
  entry: string;
}

function rowsOf(sessionId: string, chain: readonly HashedEntry[]): Row[] {
  return chain.map((hashed, position) => ({
    session: sessionId,
    position,
    hash: hashed.hash,
    prevHash: hashed.prev_hash,
    kind: hashed.entry.kind,
    entry: canonicalJson(hashed.entry),
  }));
}

/** Raw better-sqlite3: the same rows, the same pragmas and table, one IMMEDIATE transaction each. */
function openRawSqlite(file: string): { insertOne: (row: Row) => void; close: () => void } {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.pragma("busy_timeout = 10000");
  createTranscriptSchema(db);
  const insert = db.prepare(
    "INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const transaction = db.transaction((row: Row) => {
    insert.run(row.session, row.position, row.hash, row.prevHash, row.kind, row.entry, Date.now());
  });
  return { insertOne: (row) => transaction.immediate(row), close: () => db.close() };
}

/**
 * Time `store` and `baseline` over the same items in alternating blocks, so that the disk's
 * latency drifting over the run (large on a VM) hits both sides alike. Returns items/s of each.
 */
async function interleaved(
  count: number,
  store: (index: number) => Promise<unknown>,
  baseline: (index: number) => unknown,
): Promise<{ storeRate: number; baselineRate: number }> {
  const block = count / 10;
  let storeSeconds = 0;
  let baselineSeconds = 0;
  for (let from = 0; from < count; from += block) {
    let start = process.hrtime.bigint();
    for (let i = from; i < from + block; i++) await baseline(i);
    baselineSeconds += seconds(start);
    start = process.hrtime.bigint();
    for (let i = from; i < from + block; i++) await store(i);
    storeSeconds += seconds(start);
  }
  return { storeRate: count / storeSeconds, baselineRate: count / baselineSeconds };
}

/** Raw fs: the same lines appended to one open file, each written then fdatasync'ed. */
function openRawFile(file: string): { appendLine: (line: string) => Promise<void>; close: () => void } {
  const fd = openSync(file, "a");
  return {
    appendLine: async (line) => {
      writeSync(fd, line);
      await fdatasyncAsync(fd);
    },
    close: () => closeSync(fd),
  };
}

async function groupedAppends(store: SqliteStore): Promise<{ rate: number; perTransaction: number }> {
  const perSession = ENTRIES / SESSIONS;
  const sessions = Array.from({ length: SESSIONS }, (_, i) => ({
    id: uuidv7(),
    chain: buildChain(null, sampleLog(perSession, i * 1000)),
  }));
  const before = store.groupCommitStats();
  const start = process.hrtime.bigint();
  await Promise.all(
    sessions.map(async ({ id, chain }) => {
      for (const hashed of chain) await store.append(id, [hashed]);
    }),
  );
  const elapsed = seconds(start);
  const after = store.groupCommitStats();
  const transactions = after.transactions - before.transactions;
  return { rate: ENTRIES / elapsed, perTransaction: (after.requests - before.requests) / transactions };
}

/** Median ms of `runs` runs of `task` after one warm-up run. */
async function timeMs(runs: number, task: () => unknown): Promise<number> {
  await task();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await task();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

/**
 * `timeMs`, but every run's result stays reachable until the last run ends, as a caller keeps
 * the entries it restored: the garbage collector then copies each run's objects out of the
 * young generation whichever side allocated them, instead of finding most of them dead.
 */
async function timeMsKept(runs: number, task: () => unknown): Promise<number> {
  const kept: unknown[] = [];
  const ms = await timeMs(runs, async () => kept.push(await task()));
  kept.length = 0;
  return ms;
}

/** Run the log benchmarks and write bench/results/log.json. */
export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "skein-bench-log-"));
  const figures: Figure[] = [];
  try {
    const sessionId = uuidv7();
    const chain = buildChain(null, sampleLog(ENTRIES));
    const rows = rowsOf(sessionId, chain);
    const meanBytes = Math.round(
      rows.reduce((sum, row) => sum + Buffer.byteLength(row.entry), 0) / rows.length,
    );

    // 1. SQLite, one append per transaction, awaited one after the other.
    const raw = openRawSqlite(join(dir, "raw.sqlite"));
    const sqlite = new SqliteStore(join(dir, "store.sqlite"));
    const sqliteRates = await interleaved(
      ENTRIES,
      (i) => sqlite.append(sessionId, [chain[i]!]),
      (i) => raw.insertOne(rows[i]!),
    );
    raw.close();
    const storeRate = sqliteRates.storeRate;
    figures.push(
      figure(
        "sqlite_append_durable",
        storeRate,
        "entries/s",
        sqliteRates.baselineRate,
        `${ENTRIES} entries of ~${meanBytes} B, one awaited append per transaction (WAL, synchronous=FULL); baseline: raw better-sqlite3 INSERT of the same rows, one IMMEDIATE transaction each, timed in alternating blocks; target ratio >= 0.7`,
      ),
    );

    // 2. SQLite group commit: 100 sessions appending at once, each awaiting its own appends.
    const grouped = await groupedAppends(sqlite);
    figures.push(
      figure(
        "sqlite_append_grouped",
        grouped.rate,
        "entries/s",
        storeRate,
        `${SESSIONS} sessions x ${ENTRIES / SESSIONS} appends concurrently; ${grouped.perTransaction.toFixed(1)} entries per transaction; baseline: sqlite_append_durable`,
      ),
    );

    // 3. Restore a 10,000-entry session: read + verify every hash and link + replay.
    const entryTexts = rows.map((row) => row.entry);
    const parseMs = await timeMs(7, () => entryTexts.map((text) => JSON.parse(text) as unknown));
    const selectEntries = sqlite.db
      .prepare<[string], string>("SELECT entry FROM transcript WHERE session = ? ORDER BY position")
      .pluck(true);
    const unverifiedMs = await timeMs(7, () =>
      selectEntries.all(sessionId).map((text) => JSON.parse(text) as unknown),
    );
    // The work no verified restore can skip: the same SELECT and JSON.parse, plus the chained
    // SHA-256 of every entry text; no kind, link or position checks, no entry objects, no replay.
    const readAndHashMs = await timeMs(7, () => {
      let prev: string | null = null;
      return selectEntries.all(sessionId).map((text) => {
        prev = hashAfterValidPrev(prev, text);
        return JSON.parse(text) as unknown;
      });
    });
    const restoreMs = await timeMs(7, async () => collectState(await sqlite.readAll(sessionId)));
    figures.push(
      figure(
        "restore_verify_10k",
        restoreMs,
        "ms",
        parseMs,
        `SqliteStore readAll (SELECT + parse + SHA-256 of every entry + link checks) + collectState of ${ENTRIES} entries; baseline: JSON.parse of the same entry texts already in memory (results kept); lower is better, target ratio <= 2`,
      ),
    );
    figures.push(
      figure(
        "restore_verify_10k_vs_unverified_read",
        restoreMs,
        "ms",
        unverifiedMs,
        "the same restore against an unverified read of the same session (SELECT entry + JSON.parse, no hashing, no replay): what verification and replay add on top of just reading; lower is better",
      ),
    );
    figures.push(
      figure(
        "restore_verify_10k_vs_read_and_hash",
        restoreMs,
        "ms",
        readAndHashMs,
        "the same restore against the work it cannot skip: SELECT entry + JSON.parse + chained SHA-256 of each entry text (no kind/link/position checks, no entry objects, no replay); what the store's checks and the replay cost on top; lower is better",
      ),
    );
    // The same restore and baseline with every run's result kept (see timeMsKept).
    const keptParseMs = await timeMsKept(7, () => entryTexts.map((text) => JSON.parse(text) as unknown));
    const keptRestoreMs = await timeMsKept(7, async () => collectState(await sqlite.readAll(sessionId)));
    figures.push(
      figure(
        "restore_verify_10k_results_kept",
        keptRestoreMs,
        "ms",
        keptParseMs,
        "restore_verify_10k with each run's restored state kept until the timing ends, against JSON.parse of the same entry texts with each run's results kept the same way: the plain baseline drops its parsed entries as each run ends, and at ~0.7 KB allocated per entry the young generation is seldom collected while they are alive, whereas a restore allocates ~2 KB per entry (row values, hashes) and so pays for copying the entries it keeps; lower is better",
      ),
    );
    await sqlite.close();

    // 4. JSONL files, one append per fsync.
    const lines = chain.map((hashed) => `${encodeRecordLine(hashed, canonicalJson(hashed.entry))}\n`);
    const rawFile = openRawFile(join(dir, "raw.jsonl"));
    const fsStore = new FsStore(join(dir, "fs"));
    const fsRates = await interleaved(
      ENTRIES,
      (i) => fsStore.append(sessionId, [chain[i]!]),
      (i) => rawFile.appendLine(lines[i]!),
    );
    rawFile.close();
    figures.push(
      figure(
        "fs_append_durable",
        fsRates.storeRate,
        "entries/s",
        fsRates.baselineRate,
        `${ENTRIES} awaited FsStore appends (lock file, kept across back-to-back appends; head check; write + fdatasync; head slot write in place); baseline: write + fdatasync of the same lines on one open file, timed in alternating blocks; target ratio >= 0.7`,
      ),
    );

    const fileBytes = lines.join("");
    const fsParseMs = await timeMs(7, () =>
      fileBytes
        .split("\n")
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as unknown),
    );
    const fsRestoreMs = await timeMs(7, async () => collectState(await fsStore.readAll(sessionId)));
    figures.push(
      figure(
        "restore_verify_10k_fs",
        fsRestoreMs,
        "ms",
        fsParseMs,
        "FsStore readAll (read file + parse + SHA-256 + links) + collectState; baseline: split + JSON.parse of the same file text in memory (results kept); lower is better",
      ),
    );
    await fsStore.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  writeReport("log", figures);
}
