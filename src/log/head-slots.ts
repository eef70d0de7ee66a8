/**
 * The file store's head file format (`<session_id>.head`): two fixed 512-byte slots, each one
 * recorded head with a sequence number and a SHA-256 checksum, overwritten in place in turn.
 *
 * Why not one JSON file replaced by rename: a rename per append costs a directory change in the
 * journal and, on ext4, a forced writeback of the new file (auto_da_alloc), which more than
 * halved append throughput. An in-place write of an already allocated block costs neither.
 *
 * Crash argument: a write only ever goes to the slot that does not hold the newest valid record,
 * so a torn write (a crash mid-write, or a reader racing the writer) can spoil only that slot.
 * Its checksum then fails and the reader takes the other slot: an older head, which the file
 * store accepts because its record may lag its entries anyway (it is written after they are
 * durable, never before). A torn slot never reads as another head (the checksum), and no slot
 * ever names a head the log does not durably hold. Each slot fits one 512-byte sector, so the
 * usual sector-atomic write leaves it either old or new.
 *
 * Boundary rule: pure encoding and decoding; the file store does the file I/O.
 */
import { createHash } from "node:crypto";
import { LogCorruptError } from "./errors.js";
import { type HeadRecord, parseHeadRecord } from "./head-record.js";

/** Bytes per slot: one sector, so a slot never straddles two. */
export const HEAD_SLOT_BYTES = 512;
/** Slots in a head file; the file is `HEAD_SLOT_COUNT * HEAD_SLOT_BYTES` bytes once both are written. */
export const HEAD_SLOT_COUNT = 2;

const NEWLINE = 0x0a;
const CHECKSUM_HEX = 64;

/** A recorded head as it sits in a slot: the newest valid slot is the one with the largest `seq`. */
export interface SlottedHead {
  /** Which slot (0 or 1) it was read from or written to. */
  slot: number;
  seq: number;
  record: HeadRecord;
}

/**
 * One slot's bytes: `<sha256 hex of body> <body>\n`, NUL-padded to `HEAD_SLOT_BYTES`, where body
 * is `{"seq":…,"position":…,"hash":…,"signed":…}`. Throws RangeError if it does not fit (a
 * signature far longer than Ed25519's).
 */
export function encodeHeadSlot(seq: number, record: HeadRecord): Buffer {
  if (!Number.isSafeInteger(seq) || seq < 0) throw new RangeError(`invalid head slot sequence ${seq}`);
  const body = JSON.stringify({ seq, position: record.position, hash: record.hash, signed: record.signed });
  const line = `${checksumOf(Buffer.from(body, "utf8"))} ${body}\n`;
  const bytes = Buffer.alloc(HEAD_SLOT_BYTES);
  const length = bytes.write(line, 0, "utf8");
  if (length !== Buffer.byteLength(line, "utf8")) {
    throw new RangeError(`a recorded head of ${Buffer.byteLength(line)} bytes does not fit a head slot`);
  }
  return bytes;
}

/**
 * The record in one slot, or null when the slot is empty, short or torn (its checksum fails).
 * A slot whose checksum holds but whose content is not a head was written on purpose, not torn
 * by a crash: that is corruption (`LogCorruptError`).
 */
export function decodeHeadSlot(sessionId: string, slot: number, bytes: Buffer): SlottedHead | null {
  const end = bytes.indexOf(NEWLINE);
  if (end < CHECKSUM_HEX + 1 || bytes[CHECKSUM_HEX] !== 0x20) return null;
  const body = bytes.subarray(CHECKSUM_HEX + 1, end);
  if (bytes.toString("latin1", 0, CHECKSUM_HEX) !== checksumOf(body)) return null;
  const text = body.toString("utf8");
  const record = parseHeadRecord(sessionId, text);
  const seq = (JSON.parse(text) as { seq?: unknown }).seq;
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) {
    throw new LogCorruptError(sessionId, 0, "the recorded head's slot has no valid sequence number");
  }
  return { slot, seq: seq as number, record };
}

/** The newest valid slot of a head file's bytes (null: no slot holds a valid head). */
export function newestHeadSlot(sessionId: string, file: Buffer): SlottedHead | null {
  let newest: SlottedHead | null = null;
  for (let slot = 0; slot < HEAD_SLOT_COUNT; slot++) {
    const start = slot * HEAD_SLOT_BYTES;
    if (start >= file.length) break;
    const decoded = decodeHeadSlot(
      sessionId,
      slot,
      file.subarray(start, Math.min(file.length, start + HEAD_SLOT_BYTES)),
    );
    if (decoded !== null && (newest === null || decoded.seq > newest.seq)) newest = decoded;
  }
  return newest;
}

/**
 * Where and with which sequence number the next head goes: never into the newest valid slot, so
 * that a write torn by a crash leaves that one readable.
 */
export function nextHeadSlot(newest: SlottedHead | null): { slot: number; seq: number } {
  if (newest === null) return { slot: 0, seq: 0 };
  return { slot: (newest.slot + 1) % HEAD_SLOT_COUNT, seq: newest.seq + 1 };
}

function checksumOf(body: Buffer): string {
  return createHash("sha256").update(body).digest("hex");
}
