/**
 * The daemon's working form of a history entry: one straight from the log, every part whole,
 * before bounded-entry.ts bounds it into the wire shape (src/api/history.ts).
 *
 * Boundary rule: a type only; built by project-history.ts from log entries, never stored.
 */
import type { HistoryEntry, InlinePart } from "../../api/history.js";

/** A history entry straight from the log, every part whole (before any byte bound). */
export interface FullHistoryEntry extends HistoryEntry {
  content: InlinePart[];
}
