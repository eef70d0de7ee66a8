/**
 * A session's preview: the start of its first user text and how many transcript positions it has.
 *
 * Boundary rule: computed from history entries (so a fork's copied history counts), measured in
 * Unicode scalar values, never UTF-16 code units; an emoji is one character.
 */
import type { HistoryEntry } from "../../api/history.js";
import type { SessionPreview } from "../../api/session-snapshot.js";
import { inTranscript, type PlacedEntry, projectEntry, type ToolNames } from "./project-history.js";

/** How many Unicode scalar values the preview text keeps. */
const previewLength = 256;

/** The preview of a session with no history. */
export const emptyPreview: SessionPreview = { text: "", transcript_count: 0, truncated: false };

/** The preview of a whole log, oldest entry first. */
export function previewOf(entries: readonly PlacedEntry[]): SessionPreview {
  return extendPreview(emptyPreview, entries);
}

/**
 * The preview after appending `entries` (new positions, oldest first) to a log whose preview
 * was `previous`.
 */
export function extendPreview(previous: SessionPreview, entries: readonly PlacedEntry[]): SessionPreview {
  // The preview needs no tool names; projecting asks for a map to record them in.
  const toolNames: ToolNames = new Map();
  let { text, transcript_count: count, truncated } = previous;
  let found = text !== "";
  for (const placed of entries) {
    // Once the text is found only the count is left, which needs no projection.
    if (found) {
      if (inTranscript(placed.entry)) count += 1;
      continue;
    }
    const projected = projectEntry(placed, toolNames);
    if (projected.some((entry) => entry.kind !== "continuation")) count += 1;
    for (const entry of projected) {
      const userText = entry.kind === "user" ? textOf(entry) : "";
      if (userText === "") continue;
      ({ text, truncated } = truncateScalars(userText, previewLength));
      found = true;
      break;
    }
  }
  return { text, transcript_count: count, truncated };
}

function textOf(entry: HistoryEntry): string {
  let text = "";
  for (const part of entry.content) if (part.kind === "text") text += part.text;
  return text;
}

/** The first `limit` Unicode scalar values of `text`, and whether anything was cut off. */
export function truncateScalars(text: string, limit: number): { text: string; truncated: boolean } {
  // Fast path: a string no longer than `limit` UTF-16 units has at most `limit` scalars.
  if (text.length <= limit) return { text, truncated: false };
  let scalars = 0;
  let end = 0;
  for (const scalar of text) {
    if (scalars === limit) return { text: text.slice(0, end), truncated: true };
    scalars += 1;
    end += scalar.length;
  }
  return { text, truncated: false };
}
