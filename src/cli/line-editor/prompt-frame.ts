/**
 * What the prompt looks like on screen, as the bytes that draw it: dim rows above (status,
 * queued prompts), the prompt's lines (only those around the cursor when they do not fit), dim
 * rows below (search, completions), and the cursor put where the text cursor is.
 *
 * Boundary rule: pure; the editor writes the bytes and remembers where the cursor was left.
 */
import type { Paint } from "../render/terminal.js";
import { cutToWidth, displayWidth } from "../text-width.js";
import type { EditBuffer } from "./edit-buffer.js";

/** What is drawn. */
export interface FrameContent {
  /** Shown before the first line (with its escape codes); `promptWidth` is its width in columns. */
  readonly prompt: string;
  readonly promptWidth: number;
  /** Dim rows above the prompt. */
  readonly header: readonly string[];
  readonly buffer: EditBuffer;
  /** Dim rows below the prompt. */
  readonly footer: readonly string[];
}

/** The terminal drawn on, and what is on it where the frame goes. */
export interface FrameTarget {
  readonly columns: number;
  readonly rows: number;
  readonly paint: Paint;
  /** Rows from the top of the frame drawn before to the cursor; null when none is on screen. */
  readonly cursorRow: number | null;
  /** Whether the output above ended mid-line (the frame starts on the next line). */
  readonly outputOpen: boolean;
}

/** One row of the frame: its text with escape codes, and its width in columns. */
interface Row {
  readonly text: string;
  readonly width: number;
}

const continuation = "  ";

/** The bytes that replace the frame drawn before (if any) with `content`, and where the cursor ends. */
export function drawFrame(content: FrameContent, target: FrameTarget): { bytes: string; cursorRow: number } {
  const { columns, paint } = target;
  let out = "\x1b[?25l";
  if (target.cursorRow !== null) out += eraseArea(target.cursorRow);
  else if (target.outputOpen) out += "\r\n";
  const rows: Row[] = content.header.map((line) => fitted(line, columns, paint.dim));
  const { text, cursor } = content.buffer;
  const before = text.slice(0, cursor);
  const cursorLine = before.split("\n").length - 1;
  const textRows = text.split("\n").map((line, index) => {
    const prefix = index === 0 ? content.prompt : paint.dim(continuation);
    const prefixWidth = index === 0 ? content.promptWidth : continuation.length;
    const shown = line.replaceAll("\t", " ");
    return { text: prefix + shown, width: prefixWidth + displayWidth(shown) };
  });
  // A prompt taller than the screen shows the lines around the cursor, and how many are not shown.
  const budget = Math.max(3, target.rows - rows.length - 4);
  const heights = textRows.map((row) => Math.floor(row.width / columns) + 1);
  const { first, last } = visibleLines(heights, cursorLine, budget);
  if (first > 0) rows.push(fitted(`  … ${first} line${first === 1 ? "" : "s"} above`, columns, paint.dim));
  const firstTextRow = rows.length - first;
  rows.push(...textRows.slice(first, last + 1));
  const below = textRows.length - 1 - last;
  if (below > 0) rows.push(fitted(`  … ${below} line${below === 1 ? "" : "s"} below`, columns, paint.dim));
  for (const line of content.footer) rows.push(fitted(line, columns, paint.dim));
  // Where the text cursor is: its line, and its column counted from the prompt.
  const cursorOffset =
    (cursorLine === 0 ? content.promptWidth : continuation.length) +
    displayWidth(before.slice(before.lastIndexOf("\n") + 1).replaceAll("\t", " "));
  let row = 0;
  let cursorRow = 0;
  let cursorColumn = 0;
  rows.forEach((entry, index) => {
    if (index > 0) out += "\r\n";
    out += entry.text;
    // A row filled to the last column: move onto the next row so the count below holds.
    if (entry.width > 0 && entry.width % columns === 0) out += " \x1b[D\x1b[K";
    if (index === firstTextRow + cursorLine) {
      cursorRow = row + Math.floor(cursorOffset / columns);
      cursorColumn = cursorOffset % columns;
    }
    row += Math.floor(entry.width / columns) + 1;
  });
  const lastRow = row - 1;
  if (lastRow > cursorRow) out += `\x1b[${lastRow - cursorRow}A`;
  out += `\r${cursorColumn > 0 ? `\x1b[${cursorColumn}C` : ""}\x1b[?25h`;
  return { bytes: out, cursorRow };
}

/** The bytes that erase a frame whose cursor is `cursorRow` rows below its top; the cursor ends top-left. */
export function eraseArea(cursorRow: number): string {
  return `${cursorRow > 0 ? `\x1b[${cursorRow}A` : ""}\r\x1b[J`;
}

/**
 * The lines shown (`first` to `last`) of lines `heights` rows high: the cursor's line, then
 * alternately one more below and one more above while they fit in `budget` rows.
 */
export function visibleLines(
  heights: readonly number[],
  cursorLine: number,
  budget: number,
): { first: number; last: number } {
  let first = cursorLine;
  let last = cursorLine;
  let used = heights[cursorLine]!;
  for (let grew = true; grew; ) {
    grew = false;
    if (last + 1 < heights.length && used + heights[last + 1]! <= budget) {
      last += 1;
      used += heights[last]!;
      grew = true;
    }
    if (first > 0 && used + heights[first - 1]! <= budget) {
      first -= 1;
      used += heights[first]!;
      grew = true;
    }
  }
  return { first, last };
}

/** `text` cut to fit a row (leaving the last column free), styled; its width is the cut text's. */
function fitted(text: string, columns: number, style: (text: string) => string): Row {
  const cut = displayWidth(text) > columns - 1 ? `${cutToWidth(text, columns - 2)}…` : text;
  return { text: style(cut), width: displayWidth(cut) };
}
