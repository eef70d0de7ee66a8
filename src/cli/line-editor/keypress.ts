/**
 * A key as readline's `emitKeypressEvents` reports it, and what of it counts as text.
 *
 * Boundary rule: the shape of one keypress only; what a key does is decided elsewhere.
 */

/** One keypress: readline's name for the key, its modifiers and the raw escape code. */
export interface Key {
  sequence?: string;
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
  code?: string;
}

/** Whether `text` may be inserted as typed (newline and tab allowed, other controls not). */
export function isPrintable(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is excluded
  return text !== "" && !/[\x00-\x08\x0b-\x1f\x7f]/.test(text);
}
