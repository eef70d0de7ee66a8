/**
 * Session history as the HTTP API sends it: entries (one per item of a committed log entry),
 * their content parts, pages (`GET /sessions/{id}/history` and a snapshot's `history`) and the
 * slices of a truncated part's content (`GET /sessions/{id}/entries/{entry_id}/content`).
 *
 * Boundary rule: the types of the wire (each the static type of its schema in
 * schemas/history.ts) and one type guard; the daemon builds them from the log
 * (src/daemon/history), a client reads them.
 */
import type { HistoryPart, TruncatedPart } from "./schemas/history.js";

export type {
  ContentEncoding,
  ContentQuery,
  ContentSlice,
  HistoryCompaction,
  HistoryEntry,
  HistoryEntryKind,
  HistoryExclusion,
  HistoryPage,
  HistoryPart,
  HistoryQuery,
  HistoryTool,
  InlinePart,
  TruncatedPart,
  TruncationMarker,
} from "./schemas/history.js";

/** Whether a part came truncated (its content is fetched through its `ref`). */
export function isTruncatedPart(part: HistoryPart): part is TruncatedPart {
  return "truncated" in part && part.truncated === true;
}
