/**
 * The one line a compaction shows as in a transcript or a history listing.
 *
 * Boundary rule: pure text; colour is the caller's.
 */
import type { HistoryEntry } from "../../api/history.js";

/** "context compacted: 41,200 → 3,100 tokens (auto); older messages summarized" */
export function compactionLine(entry: HistoryEntry): string {
  const info = entry.compaction;
  if (info === undefined) return "context compacted";
  const tokens = `${info.before_tokens.toLocaleString("en-US")} → ${info.after_tokens.toLocaleString("en-US")} tokens`;
  const why = info.trigger === null ? "" : ` (${info.trigger})`;
  return `context compacted: ${tokens}${why}; older messages summarized`;
}
