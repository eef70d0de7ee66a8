/**
 * Making text fit a line: collapsing whitespace, cutting to a width with an ellipsis, and
 * measuring what a terminal shows (escape codes take no columns).
 *
 * Boundary rule: pure string functions; width is counted in code points, which is right for
 * the text this CLI prints (wide CJK characters may overrun a little).
 */

/** `text` on one line: runs of whitespace (newlines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** At most `width` code points of `text`, ending in "…" when cut. */
export function clip(text: string, width: number): string {
  if (width <= 0) return "";
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  return `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/** Columns `text` takes on a terminal (ANSI escape codes removed). */
export function visibleWidth(text: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the escape character is the point
  return Array.from(text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")).length;
}

/** `text` padded with spaces to `width` visible columns. */
export function padVisible(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - visibleWidth(text)));
}
