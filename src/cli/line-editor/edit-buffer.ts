/**
 * The text being edited at the chat prompt and the cursor in it: plain data and pure edits.
 *
 * Boundary rule: no terminal here; the line editor maps keys to these edits and draws the result.
 * The text may hold newlines (a multi-line prompt); the cursor is an index into it (UTF-16).
 */
import { clusterEndAfter, clusterStartBefore, displayWidth, indexAtColumn } from "../text-width.js";

/** Text and cursor (0 ≤ cursor ≤ text.length). */
export interface EditBuffer {
  readonly text: string;
  readonly cursor: number;
}

export const emptyBuffer: EditBuffer = { text: "", cursor: 0 };

/** A buffer holding `text` with the cursor at its end. */
export function bufferOf(text: string): EditBuffer {
  return { text, cursor: text.length };
}

/** Insert `chars` at the cursor. */
export function insert(buffer: EditBuffer, chars: string): EditBuffer {
  const { text, cursor } = buffer;
  return { text: text.slice(0, cursor) + chars + text.slice(cursor), cursor: cursor + chars.length };
}

/** Delete the character (grapheme cluster) before the cursor. */
export function deleteBack(buffer: EditBuffer): EditBuffer {
  const { text, cursor } = buffer;
  if (cursor === 0) return buffer;
  const start = previousClusterStart(text, cursor);
  return { text: text.slice(0, start) + text.slice(cursor), cursor: start };
}

/** Delete the character (grapheme cluster) under the cursor. */
export function deleteForward(buffer: EditBuffer): EditBuffer {
  const { text, cursor } = buffer;
  if (cursor >= text.length) return buffer;
  return { text: text.slice(0, cursor) + text.slice(nextClusterEnd(text, cursor)), cursor };
}

/** Move the cursor one character (grapheme cluster) left or right. */
export function moveChar(buffer: EditBuffer, direction: -1 | 1): EditBuffer {
  const { text, cursor } = buffer;
  if (direction === -1) {
    if (cursor === 0) return buffer;
    return { text, cursor: previousClusterStart(text, cursor) };
  }
  if (cursor >= text.length) return buffer;
  return { text, cursor: nextClusterEnd(text, cursor) };
}

/** The start of the cluster before `cursor` (a newline is a cluster of its own). */
function previousClusterStart(text: string, cursor: number): number {
  if (text[cursor - 1] === "\n") return cursor - 1;
  return clusterStartBefore(text, lineBounds(text, cursor).start, cursor);
}

/** The end of the cluster after `cursor`. */
function nextClusterEnd(text: string, cursor: number): number {
  if (text[cursor] === "\n") return cursor + 1;
  return clusterEndAfter(text, cursor, lineBounds(text, cursor).end);
}

/** Where the cursor's line starts and ends. */
function lineBounds(text: string, cursor: number): { start: number; end: number } {
  const start = text.lastIndexOf("\n", cursor - 1) + 1;
  const newline = text.indexOf("\n", cursor);
  return { start, end: newline === -1 ? text.length : newline };
}

/** Move to the start (Home, Ctrl-A) or end (End, Ctrl-E) of the cursor's line. */
export function moveLineEdge(buffer: EditBuffer, edge: "start" | "end"): EditBuffer {
  const bounds = lineBounds(buffer.text, buffer.cursor);
  return { text: buffer.text, cursor: edge === "start" ? bounds.start : bounds.end };
}

/** Move one line up or down, keeping the (display) column; null when there is no such line. */
export function moveLine(buffer: EditBuffer, direction: -1 | 1): EditBuffer | null {
  const { text, cursor } = buffer;
  const { start, end } = lineBounds(text, cursor);
  const column = displayWidth(text.slice(start, cursor));
  const to = (line: { start: number; end: number }): EditBuffer => ({
    text,
    cursor: line.start + indexAtColumn(text.slice(line.start, line.end), column),
  });
  if (direction === -1) {
    if (start === 0) return null;
    return to(lineBounds(text, start - 1));
  }
  if (end === text.length) return null;
  return to(lineBounds(text, end + 1));
}

/** Delete from the start of the line to the cursor (Ctrl-U). */
export function killToLineStart(buffer: EditBuffer): EditBuffer {
  const { start } = lineBounds(buffer.text, buffer.cursor);
  return { text: buffer.text.slice(0, start) + buffer.text.slice(buffer.cursor), cursor: start };
}

/** Delete from the cursor to the end of the line (Ctrl-K). */
export function killToLineEnd(buffer: EditBuffer): EditBuffer {
  const { end } = lineBounds(buffer.text, buffer.cursor);
  return { text: buffer.text.slice(0, buffer.cursor) + buffer.text.slice(end), cursor: buffer.cursor };
}

/** Delete the word before the cursor (Ctrl-W, Alt-Backspace). */
export function deleteWordBack(buffer: EditBuffer): EditBuffer {
  const { text, cursor } = buffer;
  let at = cursor;
  while (at > 0 && /\s/.test(text[at - 1]!)) at--;
  while (at > 0 && !/\s/.test(text[at - 1]!)) at--;
  return { text: text.slice(0, at) + text.slice(cursor), cursor: at };
}

/** Move one word left or right (Alt-B / Alt-F, Ctrl-Left / Ctrl-Right). */
export function moveWord(buffer: EditBuffer, direction: -1 | 1): EditBuffer {
  const { text } = buffer;
  let at = buffer.cursor;
  if (direction === -1) {
    while (at > 0 && /\s/.test(text[at - 1]!)) at--;
    while (at > 0 && !/\s/.test(text[at - 1]!)) at--;
  } else {
    while (at < text.length && /\s/.test(text[at]!)) at++;
    while (at < text.length && !/\s/.test(text[at]!)) at++;
  }
  return { text, cursor: at };
}

/** The whitespace-delimited word that ends at the cursor (for completion). */
export function wordBeforeCursor(buffer: EditBuffer): { word: string; start: number } {
  const before = buffer.text.slice(0, buffer.cursor);
  const match = /\S*$/.exec(before);
  const word = match?.[0] ?? "";
  return { word, start: buffer.cursor - word.length };
}

/** Replace `text[start, cursor)` by `replacement`. */
export function replaceBeforeCursor(buffer: EditBuffer, start: number, replacement: string): EditBuffer {
  return {
    text: buffer.text.slice(0, start) + replacement + buffer.text.slice(buffer.cursor),
    cursor: start + replacement.length,
  };
}
