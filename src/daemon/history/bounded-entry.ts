/**
 * The byte bound of one history entry on the wire: a content part whose JSON encoding is larger
 * than a threshold, or that would take the entry past its budget, is sent truncated (its first
 * characters and a marker with its size and the ref of the route that serves it whole), so a
 * history page, a snapshot or a `message` event never carries an unbounded entry.
 *
 * Boundary rule: pure functions of a projected entry. `partContent` is the one definition of
 * what a part's fetchable content is, shared by the marker and the content route.
 */
import type { ContentEncoding, HistoryEntry, HistoryPart, InlinePart } from "../../api/history.js";
import type { FullHistoryEntry } from "./history-entry.js";
import { jsonStringBytes, sliceText } from "./text-slice.js";

/** The byte bounds of one entry's content (sizes are of the JSON encoding). */
export interface ContentLimits {
  /** A part larger than this is truncated. */
  readonly partBytes: number;
  /** The parts of one entry together stay within this (later parts are truncated first). */
  readonly entryBytes: number;
  /** The most a truncated part keeps of its start. */
  readonly previewBytes: number;
}

export const defaultContentLimits: ContentLimits = {
  partBytes: 256 * 1024,
  entryBytes: 512 * 1024,
  previewBytes: 16 * 1024,
};

/** What a part stands for when fetched: the text itself, or the JSON text of its value. */
export function partContent(part: InlinePart): { encoding: ContentEncoding; text: string } {
  if (part.kind === "text") return { encoding: "text", text: part.text };
  return typeof part.value === "string"
    ? { encoding: "text", text: part.value }
    : { encoding: "json", text: JSON.stringify(part.value) };
}

/** The path (with query) that serves part `part` of a session's history entry whole. */
function contentRef(sessionId: string, entryId: string, part: number): string {
  return `/sessions/${sessionId}/entries/${encodeURIComponent(entryId)}/content?part=${part}`;
}

/** The entry with every part that is too large for its bounds truncated (the same object when none is). */
export function boundEntry(
  entry: FullHistoryEntry,
  sessionId: string,
  limits: ContentLimits = defaultContentLimits,
): HistoryEntry {
  let left = limits.entryBytes;
  let changed = false;
  const content = entry.content.map((part, index): HistoryPart => {
    const { encoding, text } = partContent(part);
    const inline = encoding === "json" ? Buffer.byteLength(text, "utf8") : jsonStringBytes(text);
    if (inline <= limits.partBytes && inline <= left) {
      left -= inline;
      return part;
    }
    changed = true;
    const preview = sliceText(text, 0, Math.max(0, Math.min(limits.previewBytes, left)), false).text;
    left -= jsonStringBytes(preview);
    const marker = {
      truncated: true as const,
      bytes: Buffer.byteLength(text, "utf8"),
      encoding,
      ref: contentRef(sessionId, entry.id, index),
    };
    return part.kind === "text"
      ? { kind: "text", text: preview, ...marker }
      : { kind: "json", field: part.field, value: preview, ...marker };
  });
  return changed ? { ...entry, content } : entry;
}

/** A text cut to its preview when its JSON encoding is over the part bound: the text, and its full size when cut. */
export function boundText(
  text: string,
  limits: ContentLimits = defaultContentLimits,
): { text: string; cutFrom: number | null } {
  if (jsonStringBytes(text) <= limits.partBytes) return { text, cutFrom: null };
  return {
    text: sliceText(text, 0, limits.previewBytes, false).text,
    cutFrom: Buffer.byteLength(text, "utf8"),
  };
}
