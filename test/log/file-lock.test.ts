import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LockTimeoutError } from "../../src/log/errors.js";
import { acquireHeldFileLock, giveWay } from "../../src/log/file-lock.js";

const options = { timeoutMs: 5_000, staleAfterMs: 60_000 };

/** A waiting mark as a waiter that crashed `ageMs` ago would have left it. */
function leaveWaitingMark(path: string, ageMs: number): void {
  writeFileSync(path, "");
  const then = new Date(Date.now() - ageMs);
  utimesSync(path, then, then);
}

describe("file lock waiting marks", () => {
  let dir: string;
  let lockPath: string;
  let markPath: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skein-file-lock-"));
    lockPath = join(dir, "session.jsonl.lock");
    markPath = `${lockPath}.wait`;
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("removes a mark left by a waiter that is gone when the holder looks for waiters", async () => {
    leaveWaitingMark(markPath, 5_000);
    const held = await acquireHeldFileLock(lockPath, "s", options);
    expect(held.othersWaiting()).toBe(false);
    expect(existsSync(markPath)).toBe(false);
    held.release();
  });

  it("keeps a fresh mark and reports the waiter", async () => {
    const held = await acquireHeldFileLock(lockPath, "s", options);
    leaveWaitingMark(markPath, 0);
    expect(held.othersWaiting()).toBe(true);
    expect(existsSync(markPath)).toBe(true);
    held.release();
  });

  it("gives way at once to a mark left by a waiter that is gone, and removes it", async () => {
    leaveWaitingMark(markPath, 5_000);
    const started = Date.now();
    await giveWay(lockPath, 2_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(existsSync(markPath)).toBe(false);
  });

  it("removes a waiter's own mark once it holds the lock", async () => {
    const holder = await acquireHeldFileLock(lockPath, "s", options);
    const waiting = acquireHeldFileLock(lockPath, "s", options);
    while (!existsSync(markPath)) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(holder.othersWaiting()).toBe(true);
    holder.release();
    const held = await waiting;
    expect(existsSync(markPath)).toBe(false);
    held.release();
  });

  it("removes a waiter's own mark when it gives up", async () => {
    const holder = await acquireHeldFileLock(lockPath, "s", options);
    await expect(acquireHeldFileLock(lockPath, "s", { ...options, timeoutMs: 60 })).rejects.toBeInstanceOf(
      LockTimeoutError,
    );
    expect(existsSync(markPath)).toBe(false);
    holder.release();
  });
});
