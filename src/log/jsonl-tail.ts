/**
 * The committed end of a JSONL session file: where its last complete line ends and what that
 * line's entry is, found by counting newlines (from a known earlier end when there is one).
 *
 * Boundary rule: reads only; the file store decides what to do with what is found.
 */
import { readSync } from "node:fs";
import { isEntryHash } from "./entry-hash.js";
import { LogCorruptError } from "./errors.js";
import { decodeRecordLine } from "./jsonl-record.js";
import { verifyEntry } from "./verify-chain.js";

const NEWLINE = 0x0a;
const SCAN_CHUNK = 64 * 1024;

/**
 * What we last knew about the committed end of a session file. Only an optimisation: it is
 * used only while the file size still equals `committedEnd` and the head line still starts
 * with `hash`; otherwise the file is scanned again.
 */
export interface TailState {
  committedEnd: number;
  /** Byte offset of the head line. */
  headLineStart: number;
  hash: string;
  position: number;
}

/** Where the committed part of a file ends and what its head is (null: no committed line). */
export interface ScannedTail {
  size: number;
  committedEnd: number;
  head: TailState | null;
}

/**
 * Find the committed end of a file by counting newlines from `offset` (where `known`, the
 * head at that offset, was already established), then decode and self-check the head line.
 */
export function scanTail(
  sessionId: string,
  fd: number,
  size: number,
  offset: number,
  known: TailState | null,
): ScannedTail {
  let lines = known === null ? 0 : known.position + 1;
  let lastLineStart = known === null ? 0 : known.headLineStart;
  let committedEnd = offset;
  const chunk = Buffer.allocUnsafe(SCAN_CHUNK);
  let chunkStart = offset;
  while (chunkStart < size) {
    const bytesRead = readSync(fd, chunk, 0, Math.min(chunk.length, size - chunkStart), chunkStart);
    if (bytesRead === 0) break;
    const view = chunk.subarray(0, bytesRead);
    for (let at = view.indexOf(NEWLINE); at !== -1; at = view.indexOf(NEWLINE, at + 1)) {
      lastLineStart = committedEnd;
      committedEnd = chunkStart + at + 1;
      lines++;
    }
    chunkStart += bytesRead;
  }
  if (lines === 0) return { size, committedEnd: 0, head: null };
  if (known !== null && committedEnd === known.committedEnd) return { size, committedEnd, head: known };
  const position = lines - 1;
  const line = Buffer.allocUnsafe(committedEnd - 1 - lastLineStart);
  readFully(fd, line, lastLineStart);
  const record = decodeRecordLine(sessionId, position, line);
  // Self-check the head before anything is chained onto it; the full chain is checked on read.
  const prev = record.hashed.prev_hash;
  if (prev !== null && !isEntryHash(prev)) {
    throw new LogCorruptError(sessionId, position, "prev_hash is not 64 lowercase hex digits");
  }
  verifyEntry(sessionId, position, prev, record.hashed, record.entryBytes ?? undefined);
  return {
    size,
    committedEnd,
    head: { committedEnd, headLineStart: lastLineStart, hash: record.hashed.hash, position },
  };
}

/** Whether the line at the tail's recorded start still begins with its hash (the cache is still valid). */
export function lineStartsWithHash(fd: number, tail: TailState): boolean {
  const expected = `{"hash":"${tail.hash}"`;
  const buffer = Buffer.allocUnsafe(expected.length);
  const bytesRead = readSync(fd, buffer, 0, buffer.length, tail.headLineStart);
  return bytesRead === buffer.length && buffer.toString("latin1") === expected;
}

/** Read exactly `into.length` bytes at `position`. */
function readFully(fd: number, into: Buffer, position: number): void {
  let done = 0;
  while (done < into.length) {
    const bytesRead = readSync(fd, into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error(`unexpected end of file at ${position + done}`);
    done += bytesRead;
  }
}
