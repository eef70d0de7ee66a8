/**
 * One daemon per home: an exclusive SQLite lock on `$SKEIN_HOME/daemon.lock`.
 *
 * Boundary rule: this file only takes and releases the lock. SQLite with
 * `locking_mode=EXCLUSIVE` and a `BEGIN EXCLUSIVE` that is never committed holds an OS file lock
 * for as long as the connection is open; the kernel drops it when the process dies, even on
 * SIGKILL, so a crashed daemon never leaves a stale lock behind (unlike a pid file). SQLite also
 * tracks locks per inode inside one process, so a second lock from the same process fails too.
 */
import Database from "better-sqlite3";
import { readDiscoveryFile } from "../../home/discovery-file.js";
import { homePaths } from "../../home/home.js";

/** Another daemon holds the home. */
export class HomeLockedError extends Error {
  constructor(
    readonly home: string,
    /** The holder's pid as its daemon.json says, when it says. */
    readonly pid: number | null,
  ) {
    super(
      pid === null
        ? `another Skein daemon is running for home ${home}`
        : `another Skein daemon (pid ${pid}) is running for home ${home}`,
    );
    this.name = "HomeLockedError";
  }
}

/** The exclusive lock on a home, held until `release()` or process exit. */
export class HomeLock {
  private constructor(
    readonly home: string,
    readonly path: string,
    private database: Database.Database | null,
  ) {}

  /** Take the lock on `home` (which must exist) or throw HomeLockedError at once. */
  static acquire(home: string): HomeLock {
    const path = homePaths(home).lock;
    // timeout 0: a held lock must fail now, not after a busy wait.
    const database = new Database(path, { timeout: 0 });
    try {
      database.pragma("locking_mode = EXCLUSIVE");
      database.exec("BEGIN EXCLUSIVE");
    } catch (error) {
      database.close();
      if (isBusy(error)) throw new HomeLockedError(home, holderPid(home));
      throw error;
    }
    return new HomeLock(home, path, database);
  }

  /** True until release(). */
  get held(): boolean {
    return this.database !== null;
  }

  /** Drop the lock (idempotent). Closing the connection rolls the open transaction back. */
  release(): void {
    const database = this.database;
    this.database = null;
    database?.close();
  }
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

function holderPid(home: string): number | null {
  try {
    return readDiscoveryFile(home)?.pid ?? null;
  } catch {
    return null;
  }
}
