/**
 * The one line a context exclusion shows as in a transcript or a history listing: which
 * entries the model is no longer sent, and why.
 *
 * Boundary rule: pure text; colour is the caller's.
 */
import type { HistoryEntry } from "../../api/history.js";

/** "entries 5–7 left out of the model's context (repair)" */
export function exclusionLine(entry: HistoryEntry): string {
  const info = entry.excluded;
  if (info === undefined) return "entries left out of the model's context";
  const range =
    info.from_position === info.to_position
      ? `entry ${info.from_position}`
      : `entries ${info.from_position}–${info.to_position}`;
  return `${range} left out of the model's context (${info.reason})`;
}
