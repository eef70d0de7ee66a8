/** Log entries for history tests, placed at consecutive positions (hashes are not checked here). */
import type { LogEntry, PositionedEntry } from "../../../src/log/entries.js";
import type { Item } from "../../../src/model/items.js";

export const ts0 = Date.parse("2025-03-04T05:06:07.000Z");

/** The entries at positions 0, 1, 2... with placeholder hashes. */
export function placeLog(entries: readonly LogEntry[], from = 0): PositionedEntry[] {
  return entries.map((entry, i) => ({
    position: from + i,
    hash: `h${from + i}`,
    prev_hash: from + i === 0 ? null : `h${from + i - 1}`,
    entry,
  }));
}

/** A session_start entry, optionally carrying a fork's copied history. */
export function sessionStart(history: Item[] = [], ts = ts0): LogEntry {
  return { kind: "session_start", ts, system_prompt: null, config: {}, history };
}
