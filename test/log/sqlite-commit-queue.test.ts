/**
 * What the SQLite group commit adds to the shared queue behaviour (covered by the transactional
 * store contract on both backends), on real database files: synchronous writes only, a
 * transaction the connection holds across turns, and a connection closed under the queue.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GroupCommitFailedError, StoreClosedError } from "../../src/log/errors.js";
import { LogWriteTurn, RESTARTING } from "../../src/log/log-write-turn.js";
import { AsyncSqliteWriteError, SqliteCommitQueue } from "../../src/log/sqlite-commit-queue.js";

let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "skein-sqlite-queue-"));
  db = new Database(join(dir, "queue.sqlite"));
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE notes (text TEXT NOT NULL)");
});

afterEach(() => {
  if (db.open) db.close();
  rmSync(dir, { recursive: true, force: true });
});

const notes = () => db.prepare("SELECT text FROM notes ORDER BY rowid").pluck().all();

describe("the SQLite commit queue", () => {
  it("refuses a write that returns a promise, rolling back what it wrote, and commits the others", async () => {
    const queue = new SqliteCommitQueue(db);
    const insert = db.prepare("INSERT INTO notes VALUES (?)");
    const results = await Promise.allSettled([
      queue.run("a", () => {
        insert.run("kept");
      }),
      queue.run("b", async () => {
        insert.run("rolled back");
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(AsyncSqliteWriteError);
    expect(notes()).toEqual(["kept"]);
    await queue.close();
  });

  it("waits for a transaction the connection holds across turns to end before committing", async () => {
    const queue = new SqliteCommitQueue(db);
    db.exec("BEGIN");
    db.prepare("INSERT INTO notes VALUES ('held')").run();
    let committed = false;
    const write = queue
      .run("a", () => db.prepare("INSERT INTO notes VALUES ('queued')").run())
      .then(() => {
        committed = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(committed).toBe(false);
    db.exec("COMMIT");
    await write;
    expect(notes()).toEqual(["held", "queued"]);
    expect(queue.stats()).toEqual({ transactions: 1, requests: 1 });
    await queue.close();
  });

  it("commits nothing while the checkpoint worker has its turn of the log, and what queued meanwhile after", async () => {
    const turn = new LogWriteTurn();
    const word = new Int32Array(turn.buffer);
    // As the worker takes its turn to start a new log (wal-checkpointer.ts).
    expect(Atomics.compareExchange(word, 0, 0, RESTARTING)).toBe(0);
    const queue = new SqliteCommitQueue(db, { turn });
    let committed = 0;
    const writes = ["one", "two"].map((text) =>
      queue.run(text, () => db.prepare("INSERT INTO notes VALUES (?)").run(text)).then(() => committed++),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(committed).toBe(0);
    expect(notes()).toEqual([]);
    Atomics.store(word, 0, 0);
    Atomics.notify(word, 0);
    await Promise.all(writes);
    expect(notes()).toEqual(["one", "two"]);
    expect(queue.stats()).toEqual({ transactions: 1, requests: 2 });
    // The queue gave its turn back: the worker may take the next one.
    expect(Atomics.compareExchange(word, 0, 0, RESTARTING)).toBe(0);
    await queue.close();
  });

  it("runs a lone write in a transaction of its own, without a savepoint, and a batch's writes each in one", async () => {
    const run: string[] = [];
    const traced = new Database(join(dir, "traced.sqlite"), { verbose: (sql) => run.push(String(sql)) });
    traced.exec("CREATE TABLE notes (text TEXT NOT NULL)");
    const queue = new SqliteCommitQueue(traced);
    const insert = traced.prepare("INSERT INTO notes VALUES (?)");
    run.length = 0;
    await queue.run("a", () => insert.run("alone"));
    expect(run.map((sql) => sql.split(" ")[0])).toEqual(["BEGIN", "INSERT", "COMMIT"]);
    run.length = 0;
    await Promise.all([queue.run("a", () => insert.run("one")), queue.run("b", () => insert.run("two"))]);
    expect(run.filter((sql) => sql.startsWith("SAVEPOINT"))).toHaveLength(2);
    await queue.close();
    traced.close();
  });

  it("rolls a lone write that throws back whole, tells only its caller, and commits the next", async () => {
    const queue = new SqliteCommitQueue(db);
    const insert = db.prepare("INSERT INTO notes VALUES (?)");
    const refused = queue.run("a", () => {
      insert.run("rolled back");
      throw new Error("the write's own failure");
    });
    await expect(refused).rejects.toThrow("the write's own failure");
    expect(db.inTransaction).toBe(false);
    await queue.run("b", () => insert.run("kept"));
    expect(notes()).toEqual(["kept"]);
    await queue.close();
  });

  it("fails a lone write's commit as a group commit failure when SQLite rolled its transaction back under it", async () => {
    const queue = new SqliteCommitQueue(db);
    const cause = new Error("disk full");
    const write = queue.run("a", () => {
      db.prepare("INSERT INTO notes VALUES ('lost')").run();
      // What SQLite does on its own after some errors (SQLITE_FULL, SQLITE_IOERR).
      db.exec("ROLLBACK");
      throw cause;
    });
    const error = await write.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GroupCommitFailedError);
    expect((error as GroupCommitFailedError).cause).toBe(cause);
    expect(notes()).toEqual([]);
    await queue.close();
  });

  it("refuses the queued writes with StoreClosedError when the connection is closed under it", async () => {
    const queue = new SqliteCommitQueue(db);
    const write = queue.run("a", () => db.prepare("INSERT INTO notes VALUES ('never')").run());
    db.close();
    await expect(write).rejects.toBeInstanceOf(StoreClosedError);
    await queue.close();
  });
});
