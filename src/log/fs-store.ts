/**
 * The JSONL file store: `<root>/<sessionId>.jsonl`, one hashed entry per line.
 *
 * Boundary rule: a line is committed once it and its newline are written and fsynced. A last
 * line without a newline is an append that never completed: readers ignore it and the next
 * append cuts it off first, so it can never make a session unreadable. A newline-terminated
 * line that does not parse or verify is corruption, reported with its position, never skipped.
 * Appends to one session are serialized in-process (a promise chain) and across processes
 * (a lock file); the compare against the head happens under both.
 */
import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  writeSync,
} from "node:fs";
import { mkdir, open, readdir, readFile, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { HashedEntry, PositionedEntry } from "./entries.js";
import { isEntryHash } from "./entry-hash.js";
import { AppendConflictError, InvalidAppendError, LogCorruptError, SessionNotFoundError } from "./errors.js";
import type { FileLockOptions } from "./file-lock.js";
import { acquireFileLock, defaultFileLockOptions } from "./file-lock.js";
import { decodeRecordLine, encodeRecordLine } from "./jsonl-record.js";
import { withKeyedMutex } from "./keyed-mutex.js";
import { prepareAppend } from "./prepared-append.js";
import type { LogHead, Store } from "./store.js";
import { verifyEntry } from "./verify-chain.js";

const fdatasyncAsync = promisify(fdatasync);

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SESSION_FILE_SUFFIX = ".jsonl";
const NEWLINE = 0x0a;
const SCAN_CHUNK = 64 * 1024;

/**
 * What we last knew about the committed end of a session file. Only an optimisation: it is
 * used only while the file size still equals `committedEnd` and the head line still starts
 * with `hash`; otherwise the file is scanned again.
 */
interface TailState {
  committedEnd: number;
  /** Byte offset of the head line. */
  headLineStart: number;
  hash: string;
  position: number;
}

/** Where the committed part of a file ends and what its head is (null: no committed line). */
interface ScannedTail {
  size: number;
  committedEnd: number;
  head: TailState | null;
}

export interface FsStoreOptions {
  lock?: Partial<FileLockOptions>;
}

export class FsStore implements Store {
  readonly rootDir: string;
  private readonly tails = new Map<string, TailState>();
  private readonly lockOptions: FileLockOptions;

  /** A store over `rootDir` (created if missing). */
  constructor(rootDir: string, options: FsStoreOptions = {}) {
    this.rootDir = resolve(rootDir);
    this.lockOptions = { ...defaultFileLockOptions, ...options.lock };
    mkdirSync(this.rootDir, { recursive: true });
  }

  /** Open (and create if missing) a store directory. */
  static async open(rootDir: string, options: FsStoreOptions = {}): Promise<FsStore> {
    await mkdir(rootDir, { recursive: true });
    return new FsStore(rootDir, options);
  }

  /** The file that holds a session's log. */
  sessionFile(sessionId: string): string {
    return join(this.rootDir, `${sessionId}${SESSION_FILE_SUFFIX}`);
  }

  async append(sessionId: string, entries: readonly HashedEntry[]): Promise<LogHead> {
    if (!SESSION_ID.test(sessionId)) {
      throw new InvalidAppendError(sessionId, -1, "a file store session id must be a lowercase UUID");
    }
    const prepared = prepareAppend(sessionId, entries);
    const expected = entries[0]!.prev_hash;
    const lines = prepared.map((entry) => `${encodeRecordLine(entry.hashed, entry.text)}\n`);
    const payload = Buffer.from(lines.join(""), "utf8");
    const lastLineBytes = Buffer.byteLength(lines[lines.length - 1]!, "utf8");
    const last = entries[entries.length - 1]!;
    const file = this.sessionFile(sessionId);

    return this.withSessionLock(sessionId, async () => {
      let fd: number;
      try {
        fd = openSync(
          file,
          expected === null ? constants.O_RDWR | constants.O_CREAT : constants.O_RDWR,
          0o644,
        );
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") {
          throw new AppendConflictError(sessionId, expected, null);
        }
        throw error;
      }
      try {
        const tail = this.committedTail(sessionId, file, fd);
        const actual = tail.head?.hash ?? null;
        if (actual !== expected) throw new AppendConflictError(sessionId, expected, actual);
        const start = tail.committedEnd;
        try {
          // An append that never completed left bytes without a newline: they are not part of the log.
          if (tail.size > start) ftruncateSync(fd, start);
          writeFully(fd, payload, start);
          await fdatasyncAsync(fd);
        } catch (error) {
          this.tails.delete(file);
          try {
            ftruncateSync(fd, start);
          } catch {
            // The failed bytes have no newline at their end or will be cut by the next append.
          }
          throw error;
        }
        if (start === 0) await syncDirectory(this.rootDir);
        const head: TailState = {
          committedEnd: start + payload.length,
          headLineStart: start + payload.length - lastLineBytes,
          hash: last.hash,
          position: (tail.head?.position ?? -1) + entries.length,
        };
        this.tails.set(file, head);
        return { hash: head.hash, position: head.position };
      } finally {
        closeSync(fd);
      }
    });
  }

  async readAll(sessionId: string): Promise<PositionedEntry[]> {
    return this.readVerified(sessionId, 0, Number.POSITIVE_INFINITY);
  }

  async readRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    if (!Number.isInteger(from) || from < 0 || !(limit >= 0)) {
      throw new RangeError(`invalid range from=${from} limit=${limit}`);
    }
    return this.readVerified(sessionId, from, limit);
  }

  async readHead(sessionId: string): Promise<LogHead | null> {
    if (!SESSION_ID.test(sessionId)) return null;
    const file = this.sessionFile(sessionId);
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    try {
      const head = this.committedTail(sessionId, file, fd).head;
      return head === null ? null : { hash: head.hash, position: head.position };
    } finally {
      closeSync(fd);
    }
  }

  async listSessions(): Promise<string[]> {
    const names = await readdir(this.rootDir);
    const ids: string[] = [];
    for (const name of names) {
      if (!name.endsWith(SESSION_FILE_SUFFIX)) continue;
      const id = name.slice(0, -SESSION_FILE_SUFFIX.length);
      if (SESSION_ID.test(id) && (await this.exists(id))) ids.push(id);
    }
    // UUIDv7 ids sort chronologically as text.
    return ids.sort().reverse();
  }

  async exists(sessionId: string): Promise<boolean> {
    if (!SESSION_ID.test(sessionId)) return false;
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.sessionFile(sessionId), "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
    try {
      // A session exists once its first line is committed, i.e. once the file holds a newline.
      const chunk = Buffer.allocUnsafe(SCAN_CHUNK);
      let offset = 0;
      for (;;) {
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, offset);
        if (bytesRead === 0) return false;
        if (chunk.subarray(0, bytesRead).includes(NEWLINE)) return true;
        offset += bytesRead;
      }
    } finally {
      await handle.close();
    }
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!SESSION_ID.test(sessionId)) return;
    const file = this.sessionFile(sessionId);
    await this.withSessionLock(sessionId, async () => {
      this.tails.delete(file);
      try {
        await unlink(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    });
  }

  async close(): Promise<void> {
    this.tails.clear();
  }

  private async withSessionLock<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    const file = this.sessionFile(sessionId);
    return withKeyedMutex(file, async () => {
      const release = await acquireFileLock(`${file}.lock`, sessionId, this.lockOptions);
      try {
        return await task();
      } finally {
        release();
      }
    });
  }

  /**
   * Read and verify entries `from <= position < from + limit`. A corruption found without the
   * lock is confirmed under it: a reader racing a writer that cuts a torn tail could otherwise
   * see a line made of the torn bytes and the new ones.
   */
  private async readVerified(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    if (!SESSION_ID.test(sessionId)) throw new SessionNotFoundError(sessionId);
    const file = this.sessionFile(sessionId);
    try {
      return decodeRange(sessionId, await readSessionFile(sessionId, file), from, limit);
    } catch (error) {
      if (!(error instanceof LogCorruptError)) throw error;
      return this.withSessionLock(sessionId, async () =>
        decodeRange(sessionId, await readSessionFile(sessionId, file), from, limit),
      );
    }
  }

  /** The committed end and head of an open session file, from the cache when it is still valid. */
  private committedTail(sessionId: string, file: string, fd: number): ScannedTail {
    const size = fstatSync(fd).size;
    const cached = this.tails.get(file);
    if (cached !== undefined && lineStartsWithHash(fd, cached)) {
      if (cached.committedEnd === size) return { size, committedEnd: size, head: cached };
      if (cached.committedEnd < size) {
        // Someone appended since: only the new bytes need scanning.
        const scanned = scanTail(sessionId, fd, size, cached.committedEnd, cached);
        this.remember(file, scanned);
        return scanned;
      }
    }
    const scanned = scanTail(sessionId, fd, size, 0, null);
    this.remember(file, scanned);
    return scanned;
  }

  private remember(file: string, scanned: ScannedTail): void {
    if (scanned.head === null) this.tails.delete(file);
    else this.tails.set(file, scanned.head);
  }
}

/**
 * Find the committed end of a file by counting newlines from `offset` (where `known`, the
 * head at that offset, was already established), then decode and self-check the head line.
 */
function scanTail(
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

/** Decode and verify lines `from <= position < from + limit` of a whole session file. */
function decodeRange(sessionId: string, bytes: Buffer, from: number, limit: number): PositionedEntry[] {
  // No committed line at all: the session does not exist (yet).
  if (!bytes.includes(NEWLINE)) throw new SessionNotFoundError(sessionId);
  const out: PositionedEntry[] = [];
  const end = from + limit;
  let position = 0;
  let lineStart = 0;
  let prevHash: string | null = null;
  for (;;) {
    const newline = bytes.indexOf(NEWLINE, lineStart);
    // No newline: the rest is a torn tail (an append that never completed), not part of the log.
    if (newline === -1 || position >= end) break;
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
    }
    position++;
    lineStart = newline + 1;
  }
  return out;
}

async function readSessionFile(sessionId: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new SessionNotFoundError(sessionId);
    throw error;
  }
}

function lineStartsWithHash(fd: number, tail: TailState): boolean {
  const expected = `{"hash":"${tail.hash}"`;
  const buffer = Buffer.allocUnsafe(expected.length);
  const bytesRead = readSync(fd, buffer, 0, buffer.length, tail.headLineStart);
  return bytesRead === buffer.length && buffer.toString("latin1") === expected;
}

function writeFully(fd: number, bytes: Buffer, position: number): void {
  let written = 0;
  while (written < bytes.length) {
    written += writeSync(fd, bytes, written, bytes.length - written, position + written);
  }
}

function readFully(fd: number, into: Buffer, position: number): void {
  let done = 0;
  while (done < into.length) {
    const bytesRead = readSync(fd, into, done, into.length - done, position + done);
    if (bytesRead === 0) throw new Error(`unexpected end of file at ${position + done}`);
    done += bytesRead;
  }
}

/** Make a new directory entry (a just-created session file) durable. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
