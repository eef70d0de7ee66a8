/**
 * Where the output above the prompt stopped: output may end in the middle of a line, and the
 * prompt is drawn below it and erased again so the next output continues on that same line.
 *
 * Boundary rule: plain data and the escape codes that depend on it; writing them is the editor's.
 */
import { displayWidth } from "../text-width.js";

/** Whether the output ended mid-line, and at which column (its width so far). */
export interface OutputEnd {
  readonly open: boolean;
  readonly column: number;
}

/** Output ended with a line break (or nothing was written, or the screen was cleared). */
export const atLineStart: OutputEnd = { open: false, column: 0 };

/** Where output ends after `plain` (what was written, without escape codes). */
export function afterWriting(end: OutputEnd, lineOpen: boolean, plain: string): OutputEnd {
  if (!lineOpen) return atLineStart;
  const newline = plain.lastIndexOf("\n");
  const column = newline === -1 ? end.column + displayWidth(plain) : displayWidth(plain.slice(newline + 1));
  return { open: true, column };
}

/**
 * The escape codes that take the cursor from the top-left of the erased prompt back to where the
 * output stopped, on the line above; null when the output ended a line (it goes on right there).
 */
export function resumeOutput(end: OutputEnd, columns: number): string | null {
  if (!end.open) return null;
  const column = end.column % columns;
  return `\x1b[1A\r${column > 0 ? `\x1b[${column}C` : ""}`;
}

/**
 * Output that just filled its row waits to wrap onto the next one: a newline there would cut
 * the line in two (for copying, and for terminals that re-wrap on resize), so the prompt is not
 * drawn until the next output.
 */
export function waitsToWrap(end: OutputEnd, columns: number): boolean {
  return end.open && end.column % columns === 0;
}
