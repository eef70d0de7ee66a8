/**
 * Up and Down at the prompt: through the prompt's own lines first, then through the history,
 * keeping what was being typed (the draft) to come back to below the newest entry.
 *
 * Boundary rule: pure functions over the buffer and the place in the history; the entries are
 * read, never changed (adding a sent prompt is the editor's).
 */
import { bufferOf, type EditBuffer, emptyBuffer, moveLine } from "./edit-buffer.js";

/** Where Up/Down have got to in the history. */
export interface HistoryPlace {
  /** Index of the entry shown, or null when the draft is shown. */
  readonly index: number | null;
  /** What was typed before going up into the history. */
  readonly draft: EditBuffer;
}

/** Not in the history, with no draft kept. */
export const atDraft: HistoryPlace = { index: null, draft: emptyBuffer };

/** The buffer shown and the place in the history. */
export interface Recall {
  readonly buffer: EditBuffer;
  readonly place: HistoryPlace;
}

/** Up: the line above the cursor, else the next older entry (the draft is kept on leaving it). */
export function recallOlder(recall: Recall, entries: readonly string[]): Recall {
  const { buffer, place } = recall;
  const moved = moveLine(buffer, -1);
  if (moved !== null) return { buffer: moved, place };
  if (entries.length === 0) return recall;
  if (place.index === null) {
    const index = entries.length - 1;
    return { buffer: bufferOf(entries[index]!), place: { index, draft: buffer } };
  }
  if (place.index === 0) return recall;
  const index = place.index - 1;
  return { buffer: bufferOf(entries[index]!), place: { index, draft: place.draft } };
}

/** Down: the line below the cursor, else the next newer entry, and past the newest the draft. */
export function recallNewer(recall: Recall, entries: readonly string[]): Recall {
  const { buffer, place } = recall;
  const moved = moveLine(buffer, 1);
  if (moved !== null) return { buffer: moved, place };
  if (place.index === null) return recall;
  if (place.index < entries.length - 1) {
    const index = place.index + 1;
    return { buffer: bufferOf(entries[index]!), place: { index, draft: place.draft } };
  }
  return { buffer: place.draft, place: { index: null, draft: place.draft } };
}
