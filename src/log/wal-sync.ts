/**
 * Durability of a SQLite database in WAL mode without blocking the event loop. The connection
 * runs with `synchronous = NORMAL`: a commit only writes its frames to the write-ahead log (a
 * write into the page cache, which already survives the process being killed), and this class
 * then flushes the log file to the disk with `fsync` on libuv's thread pool. A commit counts as
 * durable, and is acknowledged, only once an fsync that began after it has finished.
 *
 * Why this is as strong as `synchronous = FULL`: FULL fsyncs the same file at the end of each
 * commit; here the fsync comes after the commit instead of inside it, and nothing waiting on the
 * commit learns of it before then. One fsync covers every commit written before it starts, so
 * commits that pile up while one fsync runs share the next one (a second level of group commit).
 *
 * Boundary rule: the log file is opened once and kept open. That is safe because SQLite
 * deletes (and later recreates) the log only when the last connection to the database closes,
 * and the connection whose commits this flushes stays open while it is used (`close()` first).
 * Until the log exists the database file itself is flushed. An fsync that fails leaves the log's durability unknown:
 * this sync refuses every later commit too (a later fsync could report success for pages the
 * kernel already dropped), until the database is reopened.
 */
import { close, fsync, open } from "node:fs";
import { promisify } from "node:util";

const openAsync = promisify(open);
const fsyncAsync = promisify(fsync);
const closeAsync = promisify(close);

/** Test-only: make each flush take longer, as a slow disk would. */
export interface SlowDisk {
  /** Extra milliseconds per flush. */
  delayMs: number;
  /** Wait on the main thread (how commits behaved when SQLite fsynced inside the commit). */
  blocking: boolean;
}

/** The write-ahead log could not be flushed: commits since the last flush may not be on disk. */
export class WalSyncFailedError extends Error {
  constructor(
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`could not flush the SQLite write-ahead log ${path} to disk: ${String(cause)}`);
    this.name = "WalSyncFailedError";
  }
}

export class WalSync {
  readonly #path: string;
  readonly #databasePath: string;
  readonly #slowDisk: SlowDisk | null;
  /** Waiters for the next flush (they committed after the running one began). */
  #waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  /** The flush loop while it runs. */
  #loop: Promise<void> | null = null;
  #failure: WalSyncFailedError | null = null;
  #flushes = 0;
  /** The open log file (null until it exists). */
  #fd: number | null = null;

  /** Flushes `<databasePath>-wal` (or the database file itself while no log exists). */
  constructor(databasePath: string, options: { slowDisk?: SlowDisk | null } = {}) {
    this.#databasePath = databasePath;
    this.#path = `${databasePath}-wal`;
    this.#slowDisk = options.slowDisk ?? null;
  }

  /** Resolves once everything committed before this call is on disk. */
  durable(): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      this.#startLoop();
    });
  }

  /** How many fsyncs ran so far. */
  get flushes(): number {
    return this.#flushes;
  }

  #startLoop(): void {
    if (this.#loop !== null) return;
    this.#loop = this.#flushLoop().finally(() => {
      this.#loop = null;
      // Waiters that came after the loop's last check but before this ran.
      if (this.#waiting.length > 0) this.#startLoop();
    });
  }

  async #flushLoop(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      try {
        await this.#flush();
        for (const waiter of batch) waiter.resolve();
      } catch (error) {
        this.#failure = new WalSyncFailedError(this.#path, error);
        for (const waiter of [...batch, ...this.#waiting.splice(0)]) waiter.reject(this.#failure);
      }
    }
  }

  /** Close the log file (after the last flush; the sync takes no more work). */
  async close(): Promise<void> {
    await this.#loop;
    const fd = this.#fd;
    this.#fd = null;
    if (fd !== null) await closeAsync(fd);
  }

  async #flush(): Promise<void> {
    this.#fd ??= await this.#openLog();
    if (this.#fd !== null) {
      await fsyncAsync(this.#fd);
    } else {
      // No log file yet: what was committed lies in the database file.
      const fd = await openAsync(this.#databasePath, "r");
      try {
        await fsyncAsync(fd);
      } finally {
        await closeAsync(fd);
      }
    }
    this.#flushes++;
    await this.#slowDown();
  }

  async #openLog(): Promise<number | null> {
    try {
      return await openAsync(this.#path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async #slowDown(): Promise<void> {
    const slow = this.#slowDisk;
    if (slow === null || slow.delayMs <= 0) return;
    if (!slow.blocking) {
      await new Promise((resolve) => setTimeout(resolve, slow.delayMs));
      return;
    }
    // Blocks the event loop for the whole delay, as an fsync inside the commit did.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, slow.delayMs);
  }
}
