/**
 * Keeping a session's lock file across back-to-back operations of this process, instead of
 * creating and removing it for every one: those two directory changes and six syscalls were
 * about half of what a file-store append cost on top of its write and fdatasync.
 *
 * Boundary rule: the lease only changes when the lock file is created and removed, never who may
 * write. An operation runs only while this process holds the lock file, checked at its start
 * (a lock broken as stale and taken by another is taken anew). Process-wide, like the keyed
 * mutex it runs under (callers must hold it): every store instance of this process shares it.
 *
 * The lease ends, and the lock file goes: at the next turn of the event loop with no operation on
 * the session running; when another process marks that it waits (the next operation here then
 * waits briefly for that one to take the lock, so two busy processes take turns); when it is
 * older than a quarter of `staleAfterMs` (at most a second, so no waiter ever sees it as stale);
 * on `releaseIdleLeases`; at process exit.
 *
 * Known limit: a process that blocks its event loop right after an operation (a long synchronous
 * call) keeps the lock file that long; a waiter waits (up to its `timeoutMs`) or, past
 * `staleAfterMs`, breaks it, which is safe: the next operation here checks that the lock is
 * still its own and takes it anew if not.
 */
import { acquireHeldFileLock, type FileLockOptions, giveWay, type HeldFileLock } from "./file-lock.js";

interface Lease {
  held: HeldFileLock;
  /** Operations running under the lease (at most one: callers hold the keyed mutex). */
  active: number;
  /** `performance.now()` after which the lease is not reused. */
  until: number;
  /** The end-of-turn check that ends an idle lease. */
  idleCheck: NodeJS.Immediate | null;
}

const leases = new Map<string, Lease>();
/** Lock files this process just released to a waiting process: its next operation lets that one in first. */
const handedOver = new Set<string>();
/** Longer than a waiter sleeps between two looks (20 ms), with room for a busy machine. */
const giveWayMs = 100;
let exitHookInstalled = false;

/** Run `task` while this process holds the lock file at `lockPath`, keeping it for the next task if one follows at once. */
export async function withFileLockLease<T>(
  lockPath: string,
  sessionId: string,
  options: FileLockOptions,
  task: () => Promise<T>,
): Promise<T> {
  let lease = leases.get(lockPath);
  if (lease !== undefined && (performance.now() > lease.until || !lease.held.isStillOurs())) {
    endLease(lockPath, lease);
    lease = undefined;
  }
  if (lease === undefined) {
    // Without this, the next operation here would take the lock again before the waiter looks.
    if (handedOver.delete(lockPath)) await giveWay(lockPath, giveWayMs);
    const held = await acquireHeldFileLock(lockPath, sessionId, options);
    lease = {
      held,
      active: 0,
      until: performance.now() + Math.min(1_000, options.staleAfterMs / 4),
      idleCheck: null,
    };
    leases.set(lockPath, lease);
    installExitHook();
  }
  const mine = lease;
  mine.active++;
  try {
    return await task();
  } finally {
    mine.active--;
    if (mine.active === 0) {
      if (mine.held.othersWaiting()) {
        endLease(lockPath, mine);
        handedOver.add(lockPath);
      } else if (mine.idleCheck === null) {
        mine.idleCheck = setImmediate(() => {
          mine.idleCheck = null;
          if (mine.active === 0) endLeaseQuietly(lockPath, mine);
        });
      }
    }
  }
}

/** End every lease with no operation running whose lock file is in `dir` (a store's close). */
export function releaseIdleLeases(dir: string): void {
  const prefix = dir.endsWith("/") ? dir : `${dir}/`;
  for (const [lockPath, lease] of leases) {
    if (lease.active === 0 && lockPath.startsWith(prefix)) endLease(lockPath, lease);
  }
}

function endLease(lockPath: string, lease: Lease): void {
  if (lease.idleCheck !== null) clearImmediate(lease.idleCheck);
  lease.idleCheck = null;
  if (leases.get(lockPath) === lease) leases.delete(lockPath);
  lease.held.release();
}

/** For callbacks with no caller to tell: a lock file that cannot be removed is broken once stale. */
function endLeaseQuietly(lockPath: string, lease: Lease): void {
  try {
    endLease(lockPath, lease);
  } catch {
    // Left behind: waiters break it once it is older than staleAfterMs, or our pid is gone.
  }
}

/** A process that exits between two operations leaves no lock file behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const [lockPath, lease] of leases) endLeaseQuietly(lockPath, lease);
  });
}
