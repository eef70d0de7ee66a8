/**
 * Text of entries whose large parts came truncated: how to show them (their start and a note
 * saying how to see all of it) and how to tell whether live-streamed text already showed them.
 *
 * Boundary rule: pure functions of history entries and strings.
 */
import { type HistoryEntry, isTruncatedPart } from "../../api/history.js";

/** The note that follows the start of a part sent truncated. */
export function truncationNote(bytes: number): string {
  return `[… ${bytes} bytes, skein show --full]`;
}

/** Whether any of the entry's parts came truncated. */
export function hasTruncatedParts(entry: HistoryEntry): boolean {
  return entry.content.some(isTruncatedPart);
}

/** The entry's text parts joined for display, each truncated one followed by its note on a line of its own. */
export function displayText(entry: HistoryEntry): string {
  let text = "";
  for (const part of entry.content) {
    if (part.kind !== "text") continue;
    text += part.text;
    if (isTruncatedPart(part)) text += `\n${truncationNote(part.bytes)}`;
  }
  return text;
}

/**
 * The start of `shown` (text streamed live) that holds the whole text of `entry`, parts sent
 * truncated included (their start must match, then their size in UTF-8 bytes is taken), or
 * null when the streamed text does not hold it.
 */
export function streamedPrefix(entry: HistoryEntry, shown: string): string | null {
  let index = 0;
  for (const part of entry.content) {
    if (part.kind !== "text") continue;
    if (!shown.startsWith(part.text, index)) return null;
    if (!isTruncatedPart(part)) {
      index += part.text.length;
      continue;
    }
    const end = afterBytes(shown, index, part.bytes);
    if (end === null) return null;
    index = end;
  }
  return shown.slice(0, index);
}

/** The index `bytes` UTF-8 bytes after `start` in `text`, or null when the text is shorter or it falls inside a character. */
function afterBytes(text: string, start: number, bytes: number): number | null {
  let index = start;
  let counted = 0;
  while (counted < bytes && index < text.length) {
    const point = text.codePointAt(index)!;
    counted += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    index += point >= 0x10000 ? 2 : 1;
  }
  return counted === bytes ? index : null;
}
