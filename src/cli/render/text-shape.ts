/**
 * Making text fit a line: collapsing whitespace, cutting to a width with an ellipsis, and
 * measuring what a terminal shows (escape codes take no columns, wide characters two).
 *
 * Boundary rule: pure string functions over `text-width.ts`.
 */
import { cutToWidth, displayWidth } from "../text-width.js";

/** `text` on one line: runs of whitespace (newlines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** At most `width` columns of `text`, ending in "…" when cut. */
export function clip(text: string, width: number): string {
  if (width <= 0) return "";
  if (displayWidth(text) <= width) return text;
  return `${cutToWidth(text, width - 1)}…`;
}

/** Columns `text` takes on a terminal (ANSI escape codes take none). */
export function visibleWidth(text: string): number {
  return displayWidth(text);
}

/** `text` padded with spaces to `width` visible columns. */
export function padVisible(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - visibleWidth(text)));
}
