/**
 * The whole content of one part of one history entry, served in bounded slices
 * (`GET /sessions/{id}/entries/{entry_id}/content?part=K&offset=&limit=`): the way to read a
 * part that history pages and stream events send truncated.
 *
 * A loaded session's log is read at the entry's position only (an anchored range, as history
 * pages read it), not whole: a slice of one entry of a million-entry log reads about one entry.
 *
 * Boundary rule: a pure function of the verified log entries; finding nothing is an
 * EntryContentUnknownError (404), a bad offset a TextOffsetError (400).
 */
import type { ContentSlice } from "../../api/history.js";
import type { PositionedEntry } from "../../log/entries.js";
import { EntryContentUnknownError } from "../errors.js";
import { partContent } from "./bounded-entry.js";
import type { HistoryLog } from "./history-log.js";
import { projectEntry } from "./project-history.js";
import { sliceText } from "./text-slice.js";

/** What a content request names. */
export interface ContentRequest {
  sessionId: string;
  entryId: string;
  part: number;
  /** UTF-8 byte offset into the content; must start a character. */
  offset: number;
  /** Most bytes of JSON-escaped text in the slice (1..maxContentSliceBytes). */
  limit: number;
}

const positionalId = /^(0|[1-9][0-9]{0,14})(?:-(0|[1-9][0-9]{0,8}))?$/;

/** The slice of the named part's content, reading only the entry's position of `log`; throws as `readEntryContent`. */
export async function readLoggedEntryContent(
  log: HistoryLog,
  request: ContentRequest,
): Promise<ContentSlice> {
  const match = positionalId.exec(request.entryId);
  const position = match === null ? null : Number(match[1]);
  const entries = position === null || position > log.head ? [] : await log.read(position, position);
  return readEntryContent(entries, request);
}

/** The slice of the named part's content. Throws EntryContentUnknownError or TextOffsetError. */
export function readEntryContent(entries: readonly PositionedEntry[], request: ContentRequest): ContentSlice {
  const unknown = new EntryContentUnknownError(request.sessionId, request.entryId, request.part);
  // Continuation entries (`continue-<input>`) have no content; every other id starts with its position.
  const match = positionalId.exec(request.entryId);
  if (match === null) throw unknown;
  const position = Number(match[1]);
  const placed = entries.find((entry) => entry.position === position);
  if (placed === undefined) throw unknown;
  const entry = projectEntry(placed).find((projected) => projected.id === request.entryId);
  const part = entry?.content[request.part];
  if (part === undefined) throw unknown;
  const { encoding, text } = partContent(part);
  const slice = sliceText(text, request.offset, request.limit);
  const bytes = Buffer.byteLength(text, "utf8");
  return {
    entry_id: request.entryId,
    part: request.part,
    encoding,
    bytes,
    offset: request.offset,
    next_offset: slice.end < bytes ? slice.end : null,
    text: slice.text,
  };
}
