/**
 * A loaded session's log read by range for history pages and snapshots, each range hashed on
 * read (the store verifies every entry and link in it) and chained up to a verified checkpoint
 * (log/chain-checkpoints.ts). The hash of the checkpoint commits to everything before it, so the
 * range is proven to be the log this daemon verified at load and appended since, while only
 * the range (plus at most a checkpoint spacing) is read: the cost does not grow with the log.
 *
 * Boundary rule: reads only positions up to the head of the view it was made from (appends are
 * never rewritten, so such reads need no ordering with the session's commits); a range that does
 * not chain to its checkpoint is corruption, reported once to `corrupted` and thrown.
 */
import type { ChainCheckpoints } from "../../log/chain-checkpoints.js";
import type { PositionedEntry } from "../../log/entries.js";
import { LogCorruptError } from "../../log/errors.js";
import type { LogHead } from "../../log/store.js";
import type { HistoryLog } from "../history/history-log.js";
import type { SessionStorage } from "../storage/session-storage.js";

/** The session's log as of `checkpoints` now, read in verified, anchored ranges. */
export function anchoredLog(
  sessionId: string,
  storage: Pick<SessionStorage, "readLogRange">,
  checkpoints: ChainCheckpoints,
  corrupted: (error: LogCorruptError) => void,
): HistoryLog {
  const view = checkpoints.view();
  // Hashes learned from ranges read through this log: the entry before a verified range is verified too.
  const learned: LogHead[] = [];
  const anchorFor = (position: number): LogHead | null => {
    let best = view.anchorFor(position);
    for (const point of learned) {
      if (point.position >= position && (best === null || point.position < best.position)) best = point;
    }
    return best;
  };
  return {
    head: view.head?.position ?? -1,
    async read(from, to) {
      const anchor = anchorFor(to);
      if (anchor === null || from < 0 || from > to) {
        throw new RangeError(
          `invalid range ${from}..${to} of a log whose head is ${view.head?.position ?? -1}`,
        );
      }
      let entries: PositionedEntry[];
      let start = from;
      try {
        entries = await storage.readLogRange(sessionId, from, anchor.position - from + 1);
        // A pruned log's range starts at its cut when `from` is before it.
        start = Math.max(from, entries[0]?.position ?? from);
        const last = entries[entries.length - 1];
        if (entries.length !== anchor.position - start + 1 || last?.hash !== anchor.hash) {
          throw new LogCorruptError(
            sessionId,
            anchor.position,
            `the stored entry is not the one verified before (hash ${anchor.hash})`,
          );
        }
      } catch (error) {
        if (error instanceof LogCorruptError) corrupted(error);
        throw error;
      }
      const first = entries[0]!;
      if (first.prev_hash !== null && start > 0 && start === from)
        learned.push({ position: start - 1, hash: first.prev_hash });
      return entries.slice(0, Math.max(0, to - start + 1));
    },
  };
}
