/**
 * Reading and writing a file-store session's recorded head: the slot file `<id>.head` (see
 * head-slots.ts), and, for sessions written before it existed, the older `<id>.head.json` that
 * was replaced whole by rename on every append.
 *
 * Boundary rule: synchronous I/O on small files (a 1 KiB read, a 512-byte write): each is a
 * single cheap syscall, far cheaper than a thread-pool round trip. Never fsynced: the record may
 * lag its entries (see fs-store.ts).
 */
import { closeSync, constants, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { type HeadRecord, parseHeadRecord } from "./head-record.js";
import {
  encodeHeadSlot,
  HEAD_SLOT_BYTES,
  HEAD_SLOT_COUNT,
  newestHeadSlot,
  nextHeadSlot,
  type SlottedHead,
} from "./head-slots.js";
import { nullOnErrno } from "./null-on-errno.js";

/** A session's head files as read: the newest valid slot, and the record to check the log against. */
export interface StoredHead {
  /** Null when the slot file is missing or no slot in it is valid. */
  newest: SlottedHead | null;
  /** The newest slot's record, else the legacy file's, else null (no recorded head). */
  record: HeadRecord | null;
}

/** Where a session's head files are. */
export interface HeadPaths {
  /** The slot file. */
  slots: string;
  /** The JSON file older versions wrote; read only when the slot file holds no valid head. */
  legacy: string;
}

/** Open the slot file to read it and then write the next head (null: it does not exist yet). */
export function openHeadFileForUpdate(paths: HeadPaths): number | null {
  return nullOnErrno("ENOENT", () => openSync(paths.slots, constants.O_RDWR));
}

/**
 * Read a session's recorded head through `fd` (the open slot file), or by opening it when `fd`
 * is undefined. A slot file without a valid slot (created but never fully written before a
 * crash) counts as no record, like a missing one: the record may lag, so this hides nothing that
 * a crash could not. Throws `LogCorruptError` for content that no crash can produce.
 */
export function readStoredHead(sessionId: string, paths: HeadPaths, fd?: number | null): StoredHead {
  let newest: SlottedHead | null = null;
  const own = fd === undefined ? openHeadFileForRead(paths.slots) : null;
  const from = fd ?? own;
  if (from !== null && from !== undefined) {
    try {
      newest = newestHeadSlot(sessionId, readSlots(from));
    } finally {
      if (own !== null) closeSync(own);
    }
  }
  if (newest !== null) return { newest, record: newest.record };
  return { newest: null, record: readLegacyHead(sessionId, paths.legacy) };
}

/**
 * Write `record` as the next head after `current` (into the other slot), creating the slot
 * file when `fd` is null. Returns what was written, to pass as `current` next time.
 */
export function writeNextHead(
  paths: HeadPaths,
  fd: number | null,
  current: SlottedHead | null,
  record: HeadRecord,
): SlottedHead {
  const next = nextHeadSlot(current);
  const bytes = encodeHeadSlot(next.seq, record);
  const target = fd ?? openSync(paths.slots, constants.O_RDWR | constants.O_CREAT, 0o644);
  try {
    let written = 0;
    const at = next.slot * HEAD_SLOT_BYTES;
    while (written < bytes.length) {
      written += writeSync(target, bytes, written, bytes.length - written, at + written);
    }
  } finally {
    if (fd === null) closeSync(target);
  }
  return { slot: next.slot, seq: next.seq, record };
}

function openHeadFileForRead(path: string): number | null {
  return nullOnErrno("ENOENT", () => openSync(path, constants.O_RDONLY));
}

function readSlots(fd: number): Buffer {
  const bytes = Buffer.alloc(HEAD_SLOT_COUNT * HEAD_SLOT_BYTES);
  let filled = 0;
  while (filled < bytes.length) {
    const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
    if (read === 0) break;
    filled += read;
  }
  return bytes.subarray(0, filled);
}

function readLegacyHead(sessionId: string, path: string): HeadRecord | null {
  const text = nullOnErrno("ENOENT", () => readFileSync(path, "utf8"));
  return text === null ? null : parseHeadRecord(sessionId, text);
}
