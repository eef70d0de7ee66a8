/**
 * A cross-process lock file per session (`<file>.lock`, created with O_EXCL), so that the
 * compare-and-append of the JSONL store holds between processes as well as within one.
 *
 * Boundary rule: the lock only orders writers; it carries no data. A lock left by a dead
 * process is detected by pid liveness (and by process start time when a pid is reused by
 * a later incarnation, as happens across container restarts) and broken. Known limits: a
 * holder that stalls longer than `staleAfterMs` loses its lock, and breaking a stale lock has
 * a tiny window in which two fresh lockers could both proceed; both need a crashed holder.
 */
import { randomUUID } from "node:crypto";
import {
  closeSync,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { LockTimeoutError } from "./errors.js";

/** How long to wait for a lock, and when a held lock counts as abandoned. */
export interface FileLockOptions {
  timeoutMs: number;
  /** A lock this old is broken even if its holder looks alive (the holder hung or its pid was reused). */
  staleAfterMs: number;
}

export const defaultFileLockOptions: FileLockOptions = { timeoutMs: 30_000, staleAfterMs: 60_000 };

/** A lock whose content cannot be read yet (its creator has not written it) is only stale after this. */
const unreadableStaleMs = 2_000;
/** Two computations of one process's start time differ by far less than this. */
const sameProcessStartToleranceMs = 1_000;

const processStartMs = Math.round(Date.now() - process.uptime() * 1000);
const lockContent = `${process.pid} ${processStartMs} ${randomUUID()}\n`;

/** Take the lock at `lockPath` (waiting for its holder) and return the function that releases it. */
export async function acquireFileLock(
  lockPath: string,
  sessionId: string,
  options: FileLockOptions = defaultFileLockOptions,
): Promise<() => void> {
  const started = Date.now();
  let delayMs = 1;
  for (;;) {
    const mine = tryCreateLock(lockPath);
    if (mine !== null) return () => releaseFileLock(lockPath, mine);
    const holder = readLock(lockPath);
    if (holder === null) continue; // released between our attempt and our look: try again now
    if (isStale(holder, options)) {
      breakStaleLock(lockPath, holder.content);
      continue;
    }
    const waited = Date.now() - started;
    if (waited > options.timeoutMs) throw new LockTimeoutError(sessionId, lockPath, waited);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    delayMs = Math.min(delayMs * 2, 20);
  }
}

/** Which file our lock is: enough to tell it from a lock someone else created after breaking ours. */
interface LockIdentity {
  ino: number;
  mtimeMs: number;
}

function tryCreateLock(lockPath: string): LockIdentity | null {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return null;
    throw error;
  }
  try {
    writeSync(fd, lockContent);
    const stats = fstatSync(fd);
    return { ino: stats.ino, mtimeMs: stats.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function releaseFileLock(lockPath: string, mine: LockIdentity): void {
  // Only remove the lock if it is still ours (it may have been broken as stale meanwhile).
  const stats = statSync(lockPath, { throwIfNoEntry: false });
  if (stats === undefined || stats.ino !== mine.ino || stats.mtimeMs !== mine.mtimeMs) return;
  try {
    unlinkSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

interface LockHolder {
  content: string;
  ageMs: number;
}

function readLock(lockPath: string): LockHolder | null {
  try {
    const ageMs = Date.now() - statSync(lockPath).mtimeMs;
    return { content: readFileSync(lockPath, "utf8"), ageMs };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function isStale(holder: LockHolder, options: FileLockOptions): boolean {
  const match = /^(\d+) (\d+) \S+\n$/.exec(holder.content);
  if (match === null) return holder.ageMs > unreadableStaleMs;
  if (holder.ageMs > options.staleAfterMs) return true;
  const pid = Number(match[1]);
  const startMs = Number(match[2]);
  if (pid === process.pid) {
    // Our pid but another start time: a previous incarnation that died holding the lock.
    return Math.abs(startMs - processStartMs) > sameProcessStartToleranceMs;
  }
  return !isProcessAlive(pid);
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Move the stale lock aside atomically; if what we moved turns out to be a fresh lock, put it back. */
function breakStaleLock(lockPath: string, staleContent: string): void {
  const aside = `${lockPath}.${randomUUID()}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  try {
    if (readFileSync(aside, "utf8") !== staleContent) {
      try {
        linkSync(aside, lockPath);
      } catch {
        // A third writer took the lock in the moment it was moved aside: the writer whose
        // fresh lock we moved may now overlap with it (the documented window above).
      }
    }
  } finally {
    unlinkSync(aside);
  }
}
