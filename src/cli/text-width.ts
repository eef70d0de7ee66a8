/**
 * Text as a terminal shows it: how many columns a string takes (a CJK character or most emoji
 * two, a combining mark none) and where its user-perceived characters (grapheme clusters) begin
 * and end, so the cursor never lands inside one and a line is measured as it is drawn.
 *
 * Boundary rule: pure; columns come from `string-width` (East Asian Width and emoji data),
 * clusters from `Intl.Segmenter`.
 */
import stringWidth from "string-width";

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Columns `text` takes on a terminal; ANSI escape codes take none (no newlines or tabs expected). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** The longest start of `text` that fits in `columns`, never cutting a cluster. */
export function cutToWidth(text: string, columns: number): string {
  let width = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    width += stringWidth(segment);
    if (width > columns) break;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/** Where the cluster that ends at `cursor` starts, searched within `text[lineStart, cursor)`. */
export function clusterStartBefore(text: string, lineStart: number, cursor: number): number {
  let start = lineStart;
  for (const { index } of graphemes.segment(text.slice(lineStart, cursor))) start = lineStart + index;
  return start;
}

/** Where the cluster that starts at `cursor` ends, searched within `text[cursor, lineEnd)`. */
export function clusterEndAfter(text: string, cursor: number, lineEnd: number): number {
  for (const { segment } of graphemes.segment(text.slice(cursor, lineEnd))) return cursor + segment.length;
  return cursor;
}

/** The index in `line` of the cluster boundary at display column `column` (or just before it). */
export function indexAtColumn(line: string, column: number): number {
  let width = 0;
  for (const { segment, index } of graphemes.segment(line)) {
    const next = width + stringWidth(segment);
    if (next > column) return index;
    width = next;
  }
  return line.length;
}
