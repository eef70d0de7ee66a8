/**
 * SQLite storage's write-ahead log on a real file: its checkpoint worker starts each new log, so
 * no commit on the main connection writes (and fsyncs, inside the commit, on the event loop) a
 * new log's header.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { describe, expect, it, onTestFinished } from "vitest";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { openDaemonDatabase } from "../../../src/daemon/storage/database.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { assistantMessage } from "../../../src/model/items.js";
import { tempDatabase } from "./temp-database.js";

const ts = Date.parse("2025-05-06T07:08:09.010Z");
const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function create(storage: SqliteSessionStorage, id: string): Promise<unknown> {
  return storage.createSession({ id, workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
}

describe("SQLite session storage", () => {
  it("has its checkpoint worker start the next write-ahead log when asked, so its own next commit only appends", async () => {
    const { db, path } = tempDatabase();
    const storage = new SqliteSessionStorage(db, { workerStartsLogs: true });
    onTestFinished(() => storage.close());
    const header = () => readFileSync(`${path}-wal`).subarray(0, 32);
    await create(storage, "s1");
    const first = header();
    // The worker checkpoints within a second of the write; it copies the whole log (nothing
    // else writes), so the next log starts: with its salts, the header changes.
    await until(() => !header().equals(first));
    const started = header();
    await create(storage, "s2");
    expect(header().equals(started)).toBe(true);
    expect(await storage.readLog("s2")).toHaveLength(1);
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
  });

  it("by default leaves the next write-ahead log to its next commit", async () => {
    const { db, path } = tempDatabase();
    const storage = new SqliteSessionStorage(db);
    onTestFinished(() => storage.close());
    const header = () => readFileSync(`${path}-wal`).subarray(0, 32);
    await create(storage, "s1");
    const first = header();
    // The worker has checkpointed (within a second of the write) and started no log.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(header().equals(first)).toBe(true);
    await create(storage, "s2");
    expect(header().equals(first)).toBe(false);
  });

  it("keeps every acknowledged append of many sessions, chained, while the worker copies and starts logs every few ms", async () => {
    const { db, path } = tempDatabase();
    db.exec("CREATE TABLE beside_queue (n INTEGER NOT NULL)");
    const errors: string[] = [];
    const storage = new SqliteSessionStorage(db, {
      workerStartsLogs: true,
      checkpointIntervalMs: 2,
      onCheckpointError: (message) => errors.push(message),
    });
    const headers = new Set<string>();
    const sampler = setInterval(
      () => headers.add(readFileSync(`${path}-wal`).subarray(0, 32).toString("hex")),
      1,
    );
    // A reader of its own that holds snapshots now and then: some logs cannot restart.
    const reader = new Database(path);
    const snapshot = reader.prepare("SELECT count(*) AS c FROM sessions");
    const sessions = 12;
    const appends = 40;
    let running = true;
    const reading = (async () => {
      while (running) {
        reader.exec("BEGIN");
        snapshot.get();
        await new Promise((resolve) => setTimeout(resolve, 3));
        reader.exec("COMMIT");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    // Writes off the commit queue, on the main connection: how long one holds the event loop.
    let longestAsideMs = 0;
    const insertAside = db.prepare("INSERT INTO beside_queue VALUES (?)");
    const aside = (async () => {
      for (let n = 0; running; n++) {
        const started = performance.now();
        insertAside.run(n);
        longestAsideMs = Math.max(longestAsideMs, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const acknowledged = new Map<string, number>();
    await Promise.all(
      Array.from({ length: sessions }, async (_, s) => {
        const id = `load-${s}`;
        await create(storage, id);
        const writer = storage.writerFrom(id, await storage.readLog(id));
        // At least `appends` each, and on until the sampler has seen several logs started over
        // (a loaded machine restarts fewer per append), within a bound so a worker that never
        // restarts still fails the test below.
        for (let n = 0; n < appends || (headers.size <= 5 && n < appends * 25); n++) {
          await writer.append([{ kind: "user_input", ts, item: assistantMessage(`${id} ${n}`) }], {});
          acknowledged.set(id, n + 1);
          if (n % 7 === s % 7) await new Promise((resolve) => setTimeout(resolve, 1));
        }
      }),
    );
    running = false;
    await Promise.all([reading, aside]);
    clearInterval(sampler);
    reader.close();
    await storage.close();
    db.close();

    const reopened = openDaemonDatabase(path);
    const again = new SqliteSessionStorage(reopened);
    try {
      for (let s = 0; s < sessions; s++) {
        const entries = await again.readLog(`load-${s}`);
        expect(entries).toHaveLength(1 + (acknowledged.get(`load-${s}`) ?? -1));
      }
      expect(reopened.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      await again.close();
      reopened.close();
    }
    expect(errors).toEqual([]);
    // Many logs were started over (each a new header) while the sessions wrote.
    expect(headers.size).toBeGreaterThan(5);
    console.log(
      `load: ${headers.size} log headers seen, longest write beside the queue ${longestAsideMs.toFixed(1)} ms`,
    );
  });
});
