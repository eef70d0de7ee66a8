import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { LogWriteTurn } from "../../src/log/log-write-turn.js";
import { WalCheckpointer } from "../../src/log/wal-checkpointer.js";
import { withWalDatabase } from "./wal-database.js";

const wal = withWalDatabase("skein-wal-checkpointer-", "wal_autocheckpoint = 0");

beforeEach(() => {
  wal.db.pragma("wal_checkpoint(TRUNCATE)");
});

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Rows found in the database file alone, as if its write-ahead log were lost. */
function rowsInDatabaseFile(): number {
  const copy = join(wal.dir, "copy.sqlite");
  copyFileSync(wal.path, copy);
  const other = new Database(copy, { readonly: true });
  try {
    return (other.prepare("SELECT count(*) AS c FROM t").get() as { c: number }).c;
  } finally {
    other.close();
  }
}

/** The write-ahead log's header (its salts change when a new log starts). */
function walHeader(): Buffer {
  return readFileSync(`${wal.path}-wal`).subarray(0, 32);
}

/**
 * What a power loss may leave of a log file: `synced` is on disk; of each 4 KiB page written
 * since (`written`), `mask` says whether it reached the disk (bit i: page i).
 */
function crashImage(synced: Buffer, written: Buffer, mask: number): Buffer {
  const image = Buffer.alloc(written.length);
  synced.copy(image, 0, 0, Math.min(synced.length, written.length));
  for (let page = 0; page * 4096 < written.length; page++) {
    if ((mask & (1 << page)) !== 0) written.copy(image, page * 4096, page * 4096, (page + 1) * 4096);
  }
  return image;
}

/** Row 1's value ("gone": no row) in the database `file` with the log `log`, as recovery finds it. */
function valueAfterRecovery(file: Buffer, log: Buffer, name: string): string {
  const path = join(wal.dir, `${name}.sqlite`);
  writeFileSync(path, file);
  writeFileSync(`${path}-wal`, log);
  const db = new Database(path);
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    return (db.prepare("SELECT v FROM kv WHERE k = 1").get() as { v: string } | undefined)?.v ?? "gone";
  } finally {
    db.close();
  }
}

function insertRows(count: number): void {
  const insert = wal.db.prepare("INSERT INTO t (n) VALUES (?)");
  wal.db.transaction(() => {
    for (let n = 0; n < count; n++) insert.run(n);
  })();
}

describe("WalCheckpointer", () => {
  it("copies the write-ahead log into the database file from its own thread", async () => {
    const checkpointer = new WalCheckpointer(wal.path);
    try {
      insertRows(500);
      expect(rowsInDatabaseFile()).toBe(0);
      await checkpointer.checkpointNow();
      expect(rowsInDatabaseFile()).toBe(500);
    } finally {
      await checkpointer.close();
    }
  });

  it("checkpoints within its interval after a write, and once for many writes", async () => {
    const checkpointer = new WalCheckpointer(wal.path, { intervalMs: 30 });
    try {
      for (let n = 0; n < 10; n++) {
        insertRows(10);
        checkpointer.written();
      }
      await until(() => checkpointer.checkpoints > 0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(checkpointer.checkpoints).toBe(1);
      expect(rowsInDatabaseFile()).toBe(100);
    } finally {
      await checkpointer.close();
    }
  });

  it("does not block a reader that holds an older snapshot, and catches up after it", async () => {
    const checkpointer = new WalCheckpointer(wal.path);
    const reader = new Database(wal.path);
    try {
      insertRows(10);
      reader.exec("BEGIN");
      expect(reader.prepare("SELECT count(*) AS c FROM t").get()).toEqual({ c: 10 });
      insertRows(10);
      await checkpointer.checkpointNow();
      reader.exec("COMMIT");
      await checkpointer.checkpointNow();
      expect(rowsInDatabaseFile()).toBe(20);
    } finally {
      reader.close();
      await checkpointer.close();
    }
  });

  it("starts its worker with the first write and stops it after a while without any", async () => {
    const checkpointer = new WalCheckpointer(wal.path, { intervalMs: 10, idleStopMs: 50 });
    try {
      expect(checkpointer.workerRunning).toBe(false);
      insertRows(5);
      checkpointer.written();
      await until(() => checkpointer.checkpoints === 1);
      await until(() => !checkpointer.workerRunning);
      insertRows(5);
      checkpointer.written();
      await until(() => checkpointer.checkpoints === 2);
      expect(rowsInDatabaseFile()).toBe(10);
      expect(checkpointer.dead).toBe(false);
    } finally {
      await checkpointer.close();
    }
  });

  it("starts no worker after its close, for a write that came while its last checkpoint ran", async () => {
    const checkpointer = new WalCheckpointer(wal.path, { intervalMs: 20 });
    insertRows(5);
    const running = checkpointer.checkpointNow();
    // A commit while the checkpoint runs: one more is due within the interval.
    insertRows(5);
    checkpointer.written();
    await checkpointer.close();
    await running;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(checkpointer.workerRunning).toBe(false);
  });

  it("waits in its close for a worker that is stopping after a while without writes", async () => {
    const threads = () => readdirSync("/proc/self/task").length;
    const before = threads();
    const checkpointer = new WalCheckpointer(wal.path, { intervalMs: 10, idleStopMs: 30 });
    insertRows(5);
    checkpointer.written();
    await until(() => checkpointer.checkpoints === 1);
    expect(threads()).toBeGreaterThan(before);
    while (checkpointer.workerRunning) await new Promise((resolve) => setImmediate(resolve));
    // The worker was told to stop (it closes its connections): close waits for it too.
    await checkpointer.close();
    expect(threads()).toBe(before);
  });

  it("lets a process with nothing else to do finish its close (the worker is waited for)", () => {
    const built = resolve("dist/log/wal-checkpointer.js");
    if (!existsSync(built)) throw new Error("run npm run build first: this test runs the built module");
    const script = `
      import Database from "better-sqlite3";
      import { WalCheckpointer } from ${JSON.stringify(pathToFileURL(built).href)};
      const db = new Database(${JSON.stringify(wal.path)});
      db.exec("INSERT INTO t (n) VALUES (1)");
      db.close();
      const checkpointer = new WalCheckpointer(${JSON.stringify(wal.path)});
      await checkpointer.checkpointNow();
      await checkpointer.close();
      console.log("closed");
    `;
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(output).toBe("closed\n");
  });

  it("says so when its worker dies, and then asks for nothing more", async () => {
    const errors: string[] = [];
    let dead = 0;
    const missing = join(wal.dir, "gone", "db.sqlite");
    const checkpointer = new WalCheckpointer(missing, {
      onError: (message) => errors.push(message),
      onDead: () => dead++,
    });
    await checkpointer.checkpointNow();
    expect(checkpointer.dead).toBe(true);
    await checkpointer.checkpointNow();
    checkpointer.written();
    await checkpointer.close();
    expect(dead).toBe(1);
    expect(errors.join("\n")).toMatch(/Cannot open database/);
  });

  describe("when it starts each new log itself", () => {
    it("starts the next log after copying the whole log, so the next commit only appends", async () => {
      const checkpointer = new WalCheckpointer(wal.path, { restartsLog: new LogWriteTurn() });
      try {
        insertRows(10);
        const old = walHeader();
        await checkpointer.checkpointNow();
        expect(checkpointer.restarts).toBe(1);
        const started = walHeader();
        expect(started.equals(old)).toBe(false);
        // A commit that starts a log writes (and fsyncs) the header; this one finds it written.
        insertRows(10);
        expect(walHeader().equals(started)).toBe(true);
        expect((wal.db.prepare("SELECT count(*) AS c FROM t").get() as { c: number }).c).toBe(20);
        await checkpointer.checkpointNow();
        expect(rowsInDatabaseFile()).toBe(20);
      } finally {
        await checkpointer.close();
      }
    });

    it("leaves no power-loss image that takes back an acknowledged commit once it started the next log", async () => {
      const checkpointer = new WalCheckpointer(wal.path, { restartsLog: new LogWriteTurn() });
      try {
        wal.db.exec("CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
        wal.db.prepare("INSERT INTO kv VALUES (1, 'old')").run();
        // Acknowledged: its frame is in the log; the older version of its page sits in an earlier one.
        wal.db.prepare("UPDATE kv SET v = 'new' WHERE k = 1").run();
        const oldLog = readFileSync(`${wal.path}-wal`);
        await checkpointer.checkpointNow();
        expect(checkpointer.restarts).toBe(1);
        // The worker fsynced the new header before any frame: from then on it is on disk.
        const headerSynced = Buffer.from(oldLog);
        readFileSync(`${wal.path}-wal`).copy(headerSynced, 0, 0, 32);
        // A commit over the old frames, not flushed yet (nobody was told).
        insertRows(3000);
        const newLog = readFileSync(`${wal.path}-wal`);
        const file = readFileSync(wal.path);
        const pages = Math.ceil(newLog.length / 4096);
        expect(pages).toBeGreaterThan(3);
        const images = Math.min(1 << pages, 512);
        for (let mask = 0; mask < images; mask++) {
          expect(valueAfterRecovery(file, crashImage(headerSynced, newLog, mask), `synced-${mask}`)).toBe(
            "new",
          );
        }
        // Without that fsync (the old header still on disk), some image revives an older version.
        const revived = Array.from({ length: images }, (_, mask) => mask).filter(
          (mask) =>
            valueAfterRecovery(file, crashImage(oldLog, newLog, mask & ~1), `unsynced-${mask}`) !== "new",
        );
        expect(revived.length).toBeGreaterThan(0);
      } finally {
        await checkpointer.close();
      }
    });

    it("leaves a log that is not all copied to grow, and starts none without being asked", async () => {
      const reader = new Database(wal.path);
      const asked = new WalCheckpointer(wal.path, { restartsLog: new LogWriteTurn() });
      const plain = new WalCheckpointer(wal.path);
      try {
        insertRows(10);
        reader.exec("BEGIN");
        reader.prepare("SELECT count(*) AS c FROM t").get();
        insertRows(10);
        await asked.checkpointNow();
        expect(asked.restarts).toBe(0);
        reader.exec("COMMIT");
        await plain.checkpointNow();
        expect(plain.restarts).toBe(0);
      } finally {
        reader.close();
        await asked.close();
        await plain.close();
      }
    });

    it("leaves the restart to the commit that has the turn of the log", async () => {
      const turn = new LogWriteTurn();
      const checkpointer = new WalCheckpointer(wal.path, { restartsLog: turn });
      try {
        insertRows(10);
        const old = walHeader();
        expect(turn.acquire()).toBeNull();
        await checkpointer.checkpointNow();
        expect(checkpointer.restarts).toBe(0);
        expect(walHeader().equals(old)).toBe(true);
        insertRows(10);
        turn.release();
        expect(walHeader().equals(old)).toBe(false);
        expect(rowsInDatabaseFile()).toBe(10);
      } finally {
        await checkpointer.close();
      }
    });

    it("gives up the restart, without an error, while another connection holds the write lock", async () => {
      const errors: string[] = [];
      const checkpointer = new WalCheckpointer(wal.path, {
        restartsLog: new LogWriteTurn(),
        onError: (m) => errors.push(m),
      });
      try {
        insertRows(10);
        wal.db.exec("BEGIN IMMEDIATE");
        const started = Date.now();
        await checkpointer.checkpointNow();
        wal.db.exec("COMMIT");
        expect(Date.now() - started).toBeLessThan(1_000);
        expect(checkpointer.restarts).toBe(0);
        expect(errors).toEqual([]);
        expect(rowsInDatabaseFile()).toBe(10);
      } finally {
        await checkpointer.close();
      }
    });
  });
});
