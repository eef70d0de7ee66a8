/**
 * Tab at the prompt: one candidate replaces the word before the cursor, several extend it to
 * their common prefix and are listed below the prompt.
 *
 * Boundary rule: applies a completion (from completion.ts) to the buffer and lays out the list;
 * finding candidates is completion.ts's, drawing the rows the editor's.
 */
import { type Completion, commonPrefix } from "./completion.js";
import { type EditBuffer, replaceBeforeCursor } from "./edit-buffer.js";

const maxHintRows = 4;

/** The buffer after Tab, and the candidate rows to show below the prompt (none for one candidate). */
export function applyCompletion(
  buffer: EditBuffer,
  completion: Completion,
  columns: number,
): { buffer: EditBuffer; hints: string[] } {
  const { start, candidates } = completion;
  if (candidates.length === 1) {
    const only = candidates[0]!;
    // A folder stays open for the next Tab; anything else is finished by a space.
    return { buffer: replaceBeforeCursor(buffer, start, only.endsWith("/") ? only : `${only} `), hints: [] };
  }
  const word = buffer.text.slice(start, buffer.cursor);
  const prefix = commonPrefix(candidates);
  const extended = prefix.length > word.length ? replaceBeforeCursor(buffer, start, prefix) : buffer;
  return { buffer: extended, hints: candidateRows(candidates, columns) };
}

/** Candidates laid out in rows of the terminal's width (at most a few rows, then "…"). */
export function candidateRows(candidates: readonly string[], columns: number): string[] {
  const rows: string[] = [];
  let current = "";
  for (const candidate of candidates) {
    const next = current === "" ? candidate : `${current}  ${candidate}`;
    if (next.length > columns - 1 && current !== "") {
      rows.push(current);
      if (rows.length === maxHintRows) {
        rows[maxHintRows - 1] = `${rows[maxHintRows - 1]} …`;
        return rows;
      }
      current = candidate;
    } else {
      current = next;
    }
  }
  if (current !== "") rows.push(current);
  return rows;
}
