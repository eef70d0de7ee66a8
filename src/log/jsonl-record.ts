/**
 * The JSONL record format: one `{"hash","prev_hash","entry"}` object per line, with `entry`
 * written as its canonical JSON so the bytes on disk are exactly the bytes that were hashed.
 *
 * Boundary rule: encoding and decoding of single lines only; framing (newlines, torn tails)
 * belongs to the file store.
 */
import type { HashedEntry } from "./entries.js";
import { LogCorruptError } from "./errors.js";
import { checkHashedEntryShape, parseStoredEntry } from "./stored-entry.js";

/** A stored line, decoded. */
export interface DecodedRecord {
  hashed: HashedEntry;
  /**
   * The entry's stored bytes when the line has exactly the layout `encodeRecordLine` writes
   * (they are then what its hash covers); null for any other layout, which is then verified by
   * re-canonicalizing the parsed entry.
   */
  entryBytes: Uint8Array | null;
}

const HASH_LENGTH = 64;
const OPEN = Buffer.from('{"hash":"', "latin1");
const NO_PREV = Buffer.from('","prev_hash":null,"entry":', "latin1");
const PREV = Buffer.from('","prev_hash":"', "latin1");
const ENTRY = Buffer.from('","entry":', "latin1");
const CLOSE_BRACE = 0x7d;

/** The line (without its newline) that stores `hashed`, whose canonical entry text is `entryText`. */
export function encodeRecordLine(hashed: HashedEntry, entryText: string): string {
  const prev = hashed.prev_hash === null ? "null" : `"${hashed.prev_hash}"`;
  return `{"hash":"${hashed.hash}","prev_hash":${prev},"entry":${entryText}}`;
}

/**
 * Decode the committed line `bytes[start, end)` (without its newline); an unreadable line is
 * corruption at `position`.
 */
export function decodeRecordLine(
  sessionId: string,
  position: number,
  bytes: Buffer,
  start = 0,
  end = bytes.length,
): DecodedRecord {
  return (
    decodeExactLayout(sessionId, position, bytes, start, end) ??
    decodeAnyLayout(sessionId, position, bytes, start, end)
  );
}

/**
 * The fast path for lines this store wrote: the framing is checked byte by byte, the two hashes
 * are read from their fixed places and only the entry is parsed. The hash fields are not
 * checked here: verification compares them with computed hashes, which are well-formed.
 */
function decodeExactLayout(
  sessionId: string,
  position: number,
  bytes: Buffer,
  start: number,
  end: number,
): DecodedRecord | null {
  if (end - start < OPEN.length + HASH_LENGTH + NO_PREV.length + 2 || bytes[end - 1] !== CLOSE_BRACE)
    return null;
  if (!matchesAt(bytes, start, OPEN, end)) return null;
  const hashStart = start + OPEN.length;
  const hash = bytes.toString("latin1", hashStart, hashStart + HASH_LENGTH);
  let at = hashStart + HASH_LENGTH;
  let prevHash: string | null;
  if (matchesAt(bytes, at, NO_PREV, end)) {
    prevHash = null;
    at += NO_PREV.length;
  } else if (
    matchesAt(bytes, at, PREV, end) &&
    matchesAt(bytes, at + PREV.length + HASH_LENGTH, ENTRY, end)
  ) {
    prevHash = bytes.toString("latin1", at + PREV.length, at + PREV.length + HASH_LENGTH);
    at += PREV.length + HASH_LENGTH + ENTRY.length;
  } else {
    return null;
  }
  const entry = parseStoredEntry(sessionId, position, bytes.toString("utf8", at, end - 1));
  return { hashed: { hash, prev_hash: prevHash, entry }, entryBytes: bytes.subarray(at, end - 1) };
}

function decodeAnyLayout(
  sessionId: string,
  position: number,
  bytes: Buffer,
  start: number,
  end: number,
): DecodedRecord {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8", start, end));
  } catch (error) {
    throw new LogCorruptError(sessionId, position, `unparseable record: ${(error as Error).message}`);
  }
  return { hashed: checkHashedEntryShape(sessionId, position, value), entryBytes: null };
}

function matchesAt(bytes: Buffer, at: number, expected: Buffer, end: number): boolean {
  if (at + expected.length > end) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}
