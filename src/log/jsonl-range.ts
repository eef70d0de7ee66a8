/**
 * Reading a range of a JSONL session file: the lines decoded and verified in order, each linked
 * to the one before, and the hash of the line at the recorded head's position.
 *
 * Boundary rule: pure over the file's bytes.
 */
import type { PositionedEntry } from "./entries.js";
import { isEntryHash } from "./entry-hash.js";
import { LogCorruptError, SessionNotFoundError } from "./errors.js";
import { decodeRecordLine } from "./jsonl-record.js";
import { verifyEntry } from "./verify-chain.js";

const NEWLINE = 0x0a;

/** What decoding a range of a session file found. */
export interface DecodedRange {
  entries: PositionedEntry[];
  /** The whole file was walked: `lines` is the number of committed lines. */
  reachedEnd: boolean;
  lines: number;
  /** The hash of the line at the recorded head's position, when the file has it. */
  recordHash: string | undefined;
}

/**
 * Decode and verify lines `from <= position < from + limit` of a whole session file, and read
 * the hash of the line at `recordPosition` (the recorded head) when the walk passes it. The walk
 * stops after the range, so `reachedEnd` says whether the whole file was seen.
 */
export function decodeRange(
  sessionId: string,
  bytes: Buffer,
  from: number,
  limit: number,
  recordPosition: number | null,
): DecodedRange {
  // No committed line at all: the session does not exist (yet).
  if (!bytes.includes(NEWLINE)) throw new SessionNotFoundError(sessionId);
  const out: PositionedEntry[] = [];
  const end = from + limit;
  let position = 0;
  let lineStart = 0;
  let prevHash: string | null = null;
  let recordHash: string | undefined;
  let reachedEnd = false;
  for (;;) {
    const newline = bytes.indexOf(NEWLINE, lineStart);
    // No newline: the rest is a torn tail (an append that never completed), not part of the log.
    if (newline === -1) {
      reachedEnd = true;
      break;
    }
    if (position >= end) break;
    if (position === from - 1) {
      // The predecessor of a range: only its hash is needed, to check the range's first link.
      const predecessor = decodeRecordLine(sessionId, position, bytes, lineStart, newline);
      if (!isEntryHash(predecessor.hashed.hash)) {
        throw new LogCorruptError(sessionId, position, "hash is not 64 lowercase hex digits");
      }
      prevHash = predecessor.hashed.hash;
    } else if (position >= from) {
      const record = decodeRecordLine(sessionId, position, bytes, lineStart, newline);
      verifyEntry(sessionId, position, prevHash, record.hashed, record.entryBytes ?? undefined);
      prevHash = record.hashed.hash;
      out.push({
        hash: record.hashed.hash,
        prev_hash: record.hashed.prev_hash,
        entry: record.hashed.entry,
        position,
      });
    } else if (position === recordPosition) {
      recordHash = decodeRecordLine(sessionId, position, bytes, lineStart, newline).hashed.hash;
    }
    // In the range or its predecessor, prevHash now holds this line's hash.
    if (position === recordPosition && position >= from - 1 && position < end)
      recordHash = prevHash ?? undefined;
    position++;
    lineStart = newline + 1;
  }
  return { entries: out, reachedEnd, lines: position, recordHash };
}
