import { symlinkSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { GroupCommitFailedError } from "../../src/log/errors.js";
import { SqliteCommitQueue } from "../../src/log/sqlite-commit-queue.js";
import { type SlowDisk, WalSync, WalSyncFailedError } from "../../src/log/wal-sync.js";
import { withWalDatabase } from "./wal-database.js";

const wal = withWalDatabase("skein-wal-sync-", "synchronous = NORMAL");

function queueWith(sync: WalSync): SqliteCommitQueue {
  return new SqliteCommitQueue(wal.db, { durable: () => sync.durable() });
}

function insert(queue: SqliteCommitQueue, n: number): Promise<void> {
  return queue.run("s", () => {
    wal.db.prepare("INSERT INTO t (n) VALUES (?)").run(n);
  });
}

/**
 * The 5 ms interval ticks the event loop ran while `work` was pending, and the longest time it
 * went without one (from the start to the end of `work`).
 */
async function ticksDuring(work: Promise<unknown>): Promise<{ ticks: number; longestGapMs: number }> {
  const times = [performance.now()];
  const timer = setInterval(() => times.push(performance.now()), 5);
  await work;
  clearInterval(timer);
  times.push(performance.now());
  const gaps = times.slice(1).map((time, index) => time - times[index]!);
  return { ticks: times.length - 2, longestGapMs: Math.max(...gaps) };
}

describe("WalSync", () => {
  it("acknowledges a commit only after a flush that began after it", async () => {
    const slow: SlowDisk = { delayMs: 80, blocking: false };
    const sync = new WalSync(wal.path, { slowDisk: slow });
    const queue = queueWith(sync);
    const started = performance.now();
    await insert(queue, 1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    expect(sync.flushes).toBe(1);
    // Committed, so another connection already saw it; acknowledged only now.
    expect(wal.db.prepare("SELECT count(*) AS c FROM t").get()).toEqual({ c: 1 });
  });

  it("starts a commit's flush before its writer hears it was written, and acknowledges it after", async () => {
    const sync = new WalSync(wal.path);
    const order: string[] = [];
    const queue = new SqliteCommitQueue(wal.db, {
      durable: () => {
        order.push("flush started");
        return sync.durable();
      },
    });
    const done = queue.run(
      "s",
      () => wal.db.prepare("INSERT INTO t (n) VALUES (1)").run(),
      () => order.push("written"),
    );
    await done;
    order.push("acknowledged");
    // A writer that works on the written commit (a turn sending its model request) overlaps the disk.
    expect(order).toEqual(["flush started", "written", "acknowledged"]);
  });

  it("keeps the event loop running while the disk is slow, unlike a flush on the main thread", async () => {
    // 300 ms: room for 60 ticks of 5 ms, of which 8 must come even on a busy machine.
    const free = queueWith(new WalSync(wal.path, { slowDisk: { delayMs: 300, blocking: false } }));
    expect((await ticksDuring(insert(free, 1))).ticks).toBeGreaterThanOrEqual(8);
    // Blocked, the loop stands still for the whole flush (a tick or two may come before or
    // after it on a loaded machine, so the gap is what tells).
    const blocked = queueWith(new WalSync(wal.path, { slowDisk: { delayMs: 300, blocking: true } }));
    expect((await ticksDuring(insert(blocked, 2))).longestGapMs).toBeGreaterThanOrEqual(290);
  });

  it("lets commits that arrive during a flush share the next one", async () => {
    const sync = new WalSync(wal.path, { slowDisk: { delayMs: 40, blocking: false } });
    const queue = queueWith(sync);
    const writes: Promise<void>[] = [insert(queue, 0)];
    // Twenty commits on later ticks, all while the first flush is still running.
    for (let n = 1; n <= 20; n++) {
      await new Promise((resolve) => setImmediate(resolve));
      writes.push(insert(queue, n));
    }
    await Promise.all(writes);
    expect(queue.stats().transactions).toBeGreaterThan(2);
    expect(sync.flushes).toBe(2);
    expect(wal.db.prepare("SELECT count(*) AS c FROM t").get()).toEqual({ c: 21 });
  });

  it("flushes for a commit that asks the moment the previous flush is acknowledged", async () => {
    const sync = new WalSync(wal.path);
    // Each call comes from the acknowledgement of the one before, as the flush loop winds down.
    let chained: Promise<void> = sync.durable();
    for (let n = 0; n < 20; n++) chained = chained.then(() => sync.durable());
    await chained;
    expect(sync.flushes).toBe(21);
    await sync.close();
  });

  it("refuses the commit and every later one once a flush fails", async () => {
    // A log path that cannot be opened (a symbolic link to itself): the flush fails.
    const sync = new WalSync(join(wal.dir, "loop"));
    symlinkSync(join(wal.dir, "loop-wal"), join(wal.dir, "loop-wal"));
    const queue = queueWith(sync);
    const failed = await insert(queue, 1).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(GroupCommitFailedError);
    expect((failed as GroupCommitFailedError).cause).toBeInstanceOf(WalSyncFailedError);
    await expect(sync.durable()).rejects.toBeInstanceOf(WalSyncFailedError);
    await expect(insert(queue, 2)).rejects.toBeInstanceOf(GroupCommitFailedError);
  });

  it("flushes the database file itself while no write-ahead log exists", async () => {
    wal.db.close();
    const plain = join(wal.dir, "plain.sqlite");
    new Database(plain).close();
    const sync = new WalSync(plain);
    await sync.durable();
    expect(sync.flushes).toBe(1);
  });
});
