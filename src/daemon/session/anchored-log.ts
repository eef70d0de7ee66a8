/**
 * A loaded session's log read by range for history pages and snapshots, each range hashed on
 * read (the store verifies every entry and link in it) and chained up to a verified checkpoint
 * (log/chain-checkpoints.ts). The hash of the checkpoint commits to everything before it, so the
 * range is proven to be the log this daemon verified at load and appended since, while only
 * the range (plus the distance to its checkpoint) is read.
 *
 * That distance is small (a checkpoint spacing) for a log verified whole, but a log restored
 * from a state checkpoint knows nothing before it until its background prefix check ends: a
 * range there chains to the checkpoint itself, maybe a million entries on. So the span is read
 * backwards in bounded chunks, each checked against the hash the chunk after it starts from,
 * keeping only the range asked for, and every entry of it is learned: the checkpoints keep its
 * points, so the next range nearby costs what it costs in a log verified whole.
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

/** Entries per read while chaining a range to a distant checkpoint: what memory holds besides the range. */
const anchoredChunk = 512;

/** The session's log as of `checkpoints` now, read in verified, anchored ranges. */
export function anchoredLog(
  sessionId: string,
  storage: Pick<SessionStorage, "readLogRange">,
  checkpoints: ChainCheckpoints,
  corrupted: (error: LogCorruptError) => void,
  chunk = anchoredChunk,
): HistoryLog {
  const view = checkpoints.view();
  const head = view.head;
  // The entry before a range read is verified too: the next range back anchors on it.
  const before: LogHead[] = [];
  const anchorFor = (position: number): LogHead | null => {
    let best = view.anchorFor(position);
    // Points learned since the view was taken (by reads, by the prefix check) hold for it too.
    const now = checkpoints.view().anchorFor(position);
    const candidates =
      now === null || head === null || now.position > head.position ? before : [now, ...before];
    for (const point of candidates) {
      if (point.position >= position && (best === null || point.position < best.position)) best = point;
    }
    return best;
  };
  return {
    head: head?.position ?? -1,
    async read(from, to) {
      const anchor = anchorFor(to);
      if (anchor === null || from < 0 || from > to) {
        throw new RangeError(`invalid range ${from}..${to} of a log whose head is ${head?.position ?? -1}`);
      }
      let chained: ChainedRange;
      try {
        chained = await readChained(sessionId, storage, { from, to, anchor, chunk }, (entries) =>
          checkpoints.pointsOf(entries),
        );
      } catch (error) {
        if (error instanceof LogCorruptError) corrupted(error);
        throw error;
      }
      checkpoints.learn(chained.points);
      if (chained.before !== null) before.push(chained.before);
      return chained.entries;
    },
  };
}

/** A range read and chained to its anchor. */
interface ChainedRange {
  /** The entries `from..to` (of a pruned log, those at or after its cut). */
  entries: PositionedEntry[];
  /** The entry before `from`, when the log holds one (it is verified too). */
  before: LogHead | null;
  /** The points of every entry read, to learn (see ChainCheckpoints.pointsOf). */
  points: LogHead[];
}

/**
 * `from..to`, read backwards from `anchor` in chunks of at most `chunk` entries: each chunk must
 * end at the hash the one after it starts from (the first: the anchor's). Throws
 * `LogCorruptError` when one does not, as the store does for an entry that fails its hash.
 */
async function readChained(
  sessionId: string,
  storage: Pick<SessionStorage, "readLogRange">,
  range: { from: number; to: number; anchor: LogHead; chunk: number },
  pointsOf: (entries: readonly PositionedEntry[]) => LogHead[],
): Promise<ChainedRange> {
  const { from, to, anchor } = range;
  const size = Math.max(1, Math.floor(range.chunk));
  const wanted: PositionedEntry[][] = [];
  const points: LogHead[] = [];
  let expected: LogHead | null = anchor;
  while (expected !== null && expected.position >= from) {
    const low = Math.max(from, expected.position - size + 1);
    const read = await storage.readLogRange(sessionId, low, expected.position - low + 1);
    const first = read[0];
    const last = read[read.length - 1];
    if (first === undefined && expected !== anchor) {
      // Nothing before the stored log's start: a pruned log's cut (the store vouches for it).
      expected = null;
      break;
    }
    if (
      first === undefined ||
      last?.position !== expected.position ||
      last.hash !== expected.hash ||
      read.length !== expected.position - first.position + 1
    ) {
      throw new LogCorruptError(
        sessionId,
        expected.position,
        `the stored entry is not the one verified before (hash ${expected.hash})`,
      );
    }
    points.push(...pointsOf(read));
    if (first.position <= to)
      wanted.push(last.position <= to ? read : read.slice(0, to - first.position + 1));
    // A chunk that starts after where it was asked to starts at the stored log's start.
    expected =
      first.prev_hash === null || first.position > low
        ? null
        : { position: first.position - 1, hash: first.prev_hash };
  }
  wanted.reverse();
  return { entries: wanted.flat(), before: expected, points };
}
