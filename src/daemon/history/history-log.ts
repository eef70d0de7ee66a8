/**
 * The log as history pages read it: its head, and verified entries by position range. A page
 * reads only the window it needs (see history-page.ts), so a loaded session whose log was
 * verified once serves pages at a cost independent of the log's length (session/anchored-log.ts);
 * a log read whole (a session not loaded) is served from memory.
 *
 * Boundary rule: `read` returns exactly the entries `from..to` (inclusive, within the head), each
 * verified; its errors (storage failures, LogCorruptError) propagate unchanged.
 */
import type { PositionedEntry } from "../../log/entries.js";

export interface HistoryLog {
  /** Position of the last entry; -1 for an empty log. */
  readonly head: number;
  /**
   * The verified entries with `from <= position <= to` (0 <= from <= to <= head); of a pruned
   * log, only those at or after its cut.
   */
  read(from: number, to: number): Promise<readonly PositionedEntry[]>;
}

/**
 * A log already read whole and verified (its entries hold positions F, F + 1, ...: F is 0 unless
 * retention pruned the log, and a range before F reads as what is kept of it).
 */
export function wholeLog(entries: readonly PositionedEntry[]): HistoryLog {
  const first = entries[0]?.position ?? 0;
  return {
    head: entries.length === 0 ? -1 : entries[entries.length - 1]!.position,
    read: async (from, to) => entries.slice(Math.max(0, from - first), Math.max(0, to - first + 1)),
  };
}
