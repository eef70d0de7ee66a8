/**
 * SQLite storage's write-ahead log on a real file: its checkpoint worker starts each new log, so
 * no commit on the main connection writes (and fsyncs, inside the commit, on the event loop) a
 * new log's header.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { LogEntry } from "../../../src/log/entries.js";
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

describe("SQLite session storage", () => {
  it("has its checkpoint worker start the next write-ahead log, so its own next commit only appends", async () => {
    const { db, path } = tempDatabase();
    const storage = new SqliteSessionStorage(db);
    onTestFinished(() => storage.close());
    const header = () => readFileSync(`${path}-wal`).subarray(0, 32);
    const create = (id: string) =>
      storage.createSession({ id, workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);

    await create("s1");
    const first = header();
    // The worker checkpoints within a second of the write; it copies the whole log (nothing
    // else writes), so the next log starts: with its salts, the header changes.
    await until(() => !header().equals(first));
    const started = header();
    await create("s2");
    expect(header().equals(started)).toBe(true);
    expect(await storage.readLog("s2")).toHaveLength(1);
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
  });
});
