/**
 * A cross-process lock file per session (`<file>.lock`, created with O_EXCL), so that the
 * compare-and-append of the JSONL store holds between processes as well as within one.
 *
 * Boundary rule: the lock only orders writers; it carries no data. A lock left by a dead
 * process is detected by pid liveness (and by process start time when a pid is reused by
 * a later incarnation, as happens across container restarts) and broken. Known limits: a
 * holder that stalls longer than `staleAfterMs` loses its lock, and breaking a stale lock has
 * a tiny window in which two fresh lockers could both proceed; both need a crashed holder.
 *
 * A waiter marks that it waits (`<file>.lock.wait`, touched on every poll) so that a holder
 * keeping its lock across operations (file-lock-lease.ts) hands it over instead. The waiter
 * removes its mark once it holds the lock or gives up; a mark left by a waiter that crashed is
 * removed by the next process that looks for waiters and finds it stale.
 */
import { randomUUID } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { processAlive } from "../model/process-alive.js";
import { LockTimeoutError } from "./errors.js";
import { nullOnErrno } from "./null-on-errno.js";

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

/** A waiting mark not touched for this long was left by a waiter that is gone. */
const waitingMarkFreshMs = 1_000;

/** A lock file this process holds. */
export interface HeldFileLock {
  /** Whether the lock file is still the one we created (not broken as stale and taken by another). */
  isStillOurs(): boolean;
  /** Whether another process is waiting for this lock (it marked so within the last second). */
  othersWaiting(): boolean;
  /** Remove the lock file if it is still ours. */
  release(): void;
}

/** Take the lock at `lockPath`, waiting for its holder (marked as waiting) up to `options.timeoutMs`. */
export async function acquireHeldFileLock(
  lockPath: string,
  sessionId: string,
  options: FileLockOptions = defaultFileLockOptions,
): Promise<HeldFileLock> {
  const started = Date.now();
  const waitingMark = waitingMarkPath(lockPath);
  let marked = false;
  let delayMs = 1;
  try {
    for (;;) {
      const mine = tryCreateLock(lockPath);
      if (mine !== null) return heldLock(lockPath, mine);
      const holder = readLock(lockPath);
      if (holder === null) continue; // released between our attempt and our look: try again now
      if (isStale(holder, options)) {
        breakStaleLock(lockPath, holder.content);
        continue;
      }
      const waited = Date.now() - started;
      if (waited > options.timeoutMs) throw new LockTimeoutError(sessionId, lockPath, waited);
      markWaiting(waitingMark);
      marked = true;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 20);
    }
  } finally {
    if (marked) removeQuietly(waitingMark);
  }
}

/**
 * Let a process that marked it waits for `lockPath` take it: wait (up to `maxMs`) until its
 * mark is gone (it removes the mark once it holds the lock) or stale.
 */
export async function giveWay(lockPath: string, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  while (Date.now() < until && isWaitingMarked(waitingMarkPath(lockPath))) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Whether a waiter marked it waits within the last second; a stale mark is removed. */
function isWaitingMarked(path: string): boolean {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return false;
  if (Date.now() - stats.mtimeMs < waitingMarkFreshMs) return true;
  // Its waiter is gone (a live one touches it every 20 ms at most). Should one touch it between
  // our look and this removal, it creates the mark again on its next poll: one hand-over comes
  // a poll later, nothing worse.
  removeQuietly(path);
  return false;
}

function heldLock(lockPath: string, mine: LockIdentity): HeldFileLock {
  const waitingMark = waitingMarkPath(lockPath);
  return {
    isStillOurs: () => isSameLock(statSync(lockPath, { throwIfNoEntry: false }), mine),
    othersWaiting: () => isWaitingMarked(waitingMark),
    release: () => releaseFileLock(lockPath, mine),
  };
}

function waitingMarkPath(lockPath: string): string {
  return `${lockPath}.wait`;
}

/** Create the waiting mark, or refresh its time: a mark that is not refreshed goes stale. */
function markWaiting(path: string): void {
  const now = new Date();
  try {
    utimesSync(path, now, now);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT, 0o644));
  }
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already (another waiter that got the lock removed it, or a holder found it stale),
    // or left for the next look to remove.
  }
}

/** Which file our lock is: enough to tell it from a lock someone else created after breaking ours. */
interface LockIdentity {
  ino: number;
  mtimeMs: number;
}

function isSameLock(stats: { ino: number; mtimeMs: number } | undefined, mine: LockIdentity): boolean {
  return stats !== undefined && stats.ino === mine.ino && stats.mtimeMs === mine.mtimeMs;
}

function tryCreateLock(lockPath: string): LockIdentity | null {
  const fd = nullOnErrno("EEXIST", () => openSync(lockPath, "wx"));
  if (fd === null) return null;
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
  if (!isSameLock(statSync(lockPath, { throwIfNoEntry: false }), mine)) return;
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
  return nullOnErrno("ENOENT", () => {
    const ageMs = Date.now() - statSync(lockPath).mtimeMs;
    return { content: readFileSync(lockPath, "utf8"), ageMs };
  });
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
  return !processAlive(pid);
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
