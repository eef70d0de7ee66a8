/**
 * Restore from the tail: a session's state from its latest signed state checkpoint plus the
 * entries after it (read and verified as a range that must start at exactly the checkpoint's
 * entry), and the verification of the prefix before it, page by page, meant to run in the
 * background. Restore costs what the tail costs, not what the log costs; the prefix is still
 * verified, and a mismatch there is the same `LogCorruptError` a whole read would throw.
 *
 * Why the prefix may be read later: the checkpoint's signature binds its state to the hash of
 * the entry at its position, and that hash commits to every entry before it. The prefix check
 * reads the entries up to it, verifies every hash and link, requires the last to be that hash
 * and its replay to be that state: a rewritten, truncated or reordered prefix fails it.
 *
 * Boundary rule: reads only, through a store's verified reads; what to do with a corrupt log is
 * the caller's (the daemon marks the session corrupt).
 */

import type { CheckpointRecords } from "./checkpoint-records.js";
import { applyEntry, collectState, emptyState } from "./collect-state.js";
import type { PositionedEntry } from "./entries.js";
import { LogCorruptError } from "./errors.js";
import type { RestoredState } from "./restored-state.js";
import { checkpointOf, restoreFromCheckpoint, type StateCheckpoint } from "./state-checkpoint.js";
import type { Store } from "./store.js";

/** A session's log as restored. */
export interface RestoredLog {
  state: RestoredState;
  /**
   * The entries read and verified: the whole log, or (from a checkpoint) the checkpoint's own
   * entry and every entry after it.
   */
  entries: readonly PositionedEntry[];
  /** The checkpoint restore started from; null when it read the whole log. */
  checkpoint: StateCheckpoint | null;
}

/** The reads restore needs of a store. */
export type RestoreSource = Pick<Store, "readAll" | "readRange">;

/**
 * The session's state, from its latest checkpoint and the entries after it when it has one
 * (its signature checked), else from its whole log. Throws `LogCorruptError` for a checkpoint
 * whose signature fails or that names an entry the log does not hold (past its head, or another
 * hash), and the store's errors unchanged.
 */
export async function restoreLog(
  store: RestoreSource,
  checkpoints: Pick<CheckpointRecords<unknown>, "read">,
  sessionId: string,
): Promise<RestoredLog> {
  const checkpoint = await checkpoints.read(sessionId);
  if (checkpoint === null) {
    const entries = await store.readAll(sessionId);
    return { state: collectState(entries), entries, checkpoint: null };
  }
  const { position, hash } = checkpoint;
  const entries = await store.readRange(sessionId, position, Number.MAX_SAFE_INTEGER - position);
  const first = entries[0];
  if (first === undefined) {
    throw new LogCorruptError(
      sessionId,
      position,
      `the state checkpoint names position ${position}, past the log's head`,
    );
  }
  if (first.position !== position || first.hash !== hash) {
    throw new LogCorruptError(sessionId, position, "the entry is not the one the state checkpoint names");
  }
  return { state: restoreFromCheckpoint(sessionId, checkpoint, entries.slice(1)), entries, checkpoint };
}

/** How `verifyPrefix` reads. */
export interface PrefixOptions {
  /** Entries per read (default 512). */
  pageSize?: number;
  /** Awaited between pages (the daemon yields to its other work there). */
  between?: () => Promise<void>;
  /** Asked between pages: true stops the check early (the session was unloaded). Returns false then. */
  stopped?: () => boolean;
  /**
   * Told of each page once it is hashed and linked to the one before; what it holds is proven
   * the log's only once the check returns true (the daemon keeps its points then).
   */
  read?: (page: readonly PositionedEntry[]) => void;
}

/**
 * Verify the log up to `checkpoint` page by page: every entry hashed and linked to the one
 * before (across pages too), the last one the checkpoint's entry, and (for a log stored from
 * position 0) its replay equal to the checkpoint's state. Holds one page and the replayed
 * state at a time. Returns true once verified (false when stopped); throws `LogCorruptError`.
 */
export async function verifyPrefix(
  store: Pick<Store, "readRange">,
  sessionId: string,
  checkpoint: StateCheckpoint,
  options: PrefixOptions = {},
): Promise<boolean> {
  const pageSize = options.pageSize ?? 512;
  const end = checkpoint.position;
  let state: RestoredState | null = null;
  let last: PositionedEntry | null = null;
  while (last === null || last.position < end) {
    if (options.stopped?.() === true) return false;
    const from = last === null ? 0 : last.position + 1;
    const page = await store.readRange(sessionId, from, Math.min(pageSize, end + 1 - from));
    const first = page[0];
    if (first === undefined) {
      throw new LogCorruptError(
        sessionId,
        from,
        `the log ends before its state checkpoint at position ${end}`,
      );
    }
    if (last === null) {
      // A pruned log starts at its cut: its base is not replayed here, only its chain checked.
      state = first.position === 0 ? emptyState() : null;
    } else if (first.prev_hash !== last.hash) {
      throw new LogCorruptError(
        sessionId,
        first.position,
        "the entry does not follow the one read before it",
      );
    }
    for (const placed of page) if (state !== null) applyEntry(state, placed.entry);
    options.read?.(page);
    last = page[page.length - 1]!;
    await options.between?.();
  }
  if (last.position !== end || last.hash !== checkpoint.hash) {
    throw new LogCorruptError(sessionId, end, "the entry is not the one the state checkpoint names");
  }
  if (state !== null && checkpointOf(state, checkpoint).state !== checkpoint.state) {
    throw new LogCorruptError(sessionId, end, "the state checkpoint is not the replay of the log before it");
  }
  return true;
}
