/**
 * The JSONL file store: `<root>/<sessionId>.jsonl`, one hashed entry per line.
 *
 * Boundary rule: a line is committed once it and its newline are written and fsynced. A last
 * line without a newline is an append that never completed: readers ignore it and the next
 * append cuts it off first, so it can never make a session unreadable. A newline-terminated
 * line that does not parse or verify is corruption, reported with its position, never skipped.
 * Appends to one session are serialized in-process (a promise chain) and across processes
 * (a lock file, kept across appends that follow each other at once); the compare against the
 * head happens under both. After each append the new head is recorded in `<sessionId>.head`
 * (written after the entries, so it may lag them after a crash, never lead them): a file cut
 * back before its recorded head reads as corrupt. That file
 * is two slots overwritten in turn (head-slots.ts), not a file replaced by rename: a rename per
 * append cost more than the append's own fdatasync. Sessions written by older versions keep
 * their `<sessionId>.head.json`, read while the slot file holds no valid head.
 *
 * Every file operation of an append but the fdatasync is synchronous: each is one cheap syscall
 * on a local file, where a promise-based call would add a thread-pool round trip apiece.
 */
import { closeSync, fdatasync, fstatSync, ftruncateSync, mkdirSync, openSync } from "node:fs";
import { mkdir, readdir, unlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import type { HashedEntry, PositionedEntry } from "./entries.js";
import { AppendConflictError, InvalidAppendError, LogCorruptError, SessionNotFoundError } from "./errors.js";
import type { FileLockOptions } from "./file-lock.js";
import { defaultFileLockOptions } from "./file-lock.js";
import { releaseIdleLeases, withFileLockLease } from "./file-lock-lease.js";
import { type HeadPaths, openHeadFileForUpdate, readStoredHead, writeNextHead } from "./head-file.js";
import { checkHeadRecord, type HeadRecord } from "./head-record.js";
import type { HeadSigner } from "./head-signer.js";
import type { SlottedHead } from "./head-slots.js";
import { hasCommittedLine, openForAppend, readSessionFile, syncDirectory, writeFully } from "./jsonl-file.js";
import { decodeRange } from "./jsonl-range.js";
import { encodeRecordLine } from "./jsonl-record.js";
import { lineStartsWithHash, type ScannedTail, scanTail, type TailState } from "./jsonl-tail.js";
import { withKeyedMutex } from "./keyed-mutex.js";
import { prepareAppend } from "./prepared-append.js";
import type { AlongsideWrites, AppendOptions, LogHead, Store } from "./store.js";

const fdatasyncAsync = promisify(fdatasync);

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SESSION_FILE_SUFFIX = ".jsonl";
const HEAD_FILE_SUFFIX = ".head";
const LEGACY_HEAD_FILE_SUFFIX = ".head.json";
const NEWLINE = 0x0a;

export interface FsStoreOptions {
  lock?: Partial<FileLockOptions>;
  /** Signs every recorded head and checks signatures on read (see head-signer.ts). */
  signer?: HeadSigner;
}

export class FsStore implements Store<never> {
  readonly rootDir: string;
  private readonly tails = new Map<string, TailState>();
  private readonly lockOptions: FileLockOptions;
  private readonly signer: HeadSigner | undefined;

  /** A store over `rootDir` (created if missing). */
  constructor(rootDir: string, options: FsStoreOptions = {}) {
    this.rootDir = resolve(rootDir);
    this.lockOptions = { ...defaultFileLockOptions, ...options.lock };
    this.signer = options.signer;
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

  /** The file that records a session's head (two slots, see head-slots.ts). */
  headFile(sessionId: string): string {
    return join(this.rootDir, `${sessionId}${HEAD_FILE_SUFFIX}`);
  }

  /** The JSON head file that versions before the slot file wrote (read, never written). */
  legacyHeadFile(sessionId: string): string {
    return join(this.rootDir, `${sessionId}${LEGACY_HEAD_FILE_SUFFIX}`);
  }

  private headPaths(sessionId: string): HeadPaths {
    return { slots: this.headFile(sessionId), legacy: this.legacyHeadFile(sessionId) };
  }

  /** Files have no transactions: writes alongside an append are refused (`Tx` is never). */
  async append(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside?: AlongsideWrites<never>,
    options: AppendOptions = {},
  ): Promise<LogHead> {
    // An append returns once its lines are fsynced: written and durable are one moment.
    const head = await this.appendLines(sessionId, entries, alongside);
    options.onWritten?.(head);
    return head;
  }

  private async appendLines(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside: AlongsideWrites<never> | undefined,
  ): Promise<LogHead> {
    if (alongside !== undefined) {
      throw new InvalidAppendError(sessionId, -1, "the file store cannot commit other writes with an append");
    }
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
      const fd = openForAppend(sessionId, file, expected);
      const headPaths = this.headPaths(sessionId);
      let headFd: number | null = null;
      try {
        const tail = this.committedTail(sessionId, file, fd);
        // Nothing is chained onto a log cut back before its recorded head.
        headFd = openHeadFileForUpdate(headPaths);
        const stored = readStoredHead(sessionId, headPaths, headFd);
        checkHeadRecord(
          sessionId,
          tail.head?.position ?? -1,
          stored.record,
          (at) => (at === tail.head?.position ? tail.head.hash : null),
          { mayLag: true, signer: this.signer },
        );
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
        this.recordHead(sessionId, headPaths, headFd, stored.newest, head);
        return { hash: head.hash, position: head.position };
      } finally {
        closeSync(fd);
        if (headFd !== null) closeSync(headFd);
      }
    });
  }

  async readHeadRecord(sessionId: string): Promise<HeadRecord | null> {
    if (!SESSION_ID.test(sessionId)) return null;
    return readStoredHead(sessionId, this.headPaths(sessionId)).record;
  }

  /**
   * Record the head after its entries are durable, in the slot after `current`. A failure here
   * loses nothing (the entries are committed; the record just lags, which readers accept, and a
   * torn slot reads as the older one), so it is not the append's failure.
   */
  private recordHead(
    sessionId: string,
    paths: HeadPaths,
    fd: number | null,
    current: SlottedHead | null,
    head: { position: number; hash: string },
  ): void {
    const signed = this.signer?.sign(sessionId, head.position, head.hash) ?? null;
    const record: HeadRecord = { position: head.position, hash: head.hash, signed };
    try {
      writeNextHead(paths, fd, current, record);
    } catch {
      // The record lags (see above).
    }
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
    // The record first: it is written after the entries, so read in this order it can only lag.
    const record = await this.readHeadRecord(sessionId);
    let fd: number;
    try {
      fd = openSync(file, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      if (record === null) return null;
      throw new LogCorruptError(sessionId, 0, "the log file was removed but its recorded head remains");
    }
    try {
      const head = this.committedTail(sessionId, file, fd).head;
      // Only that the log reaches its recorded head: a lagging record's entry is not read here.
      checkHeadRecord(
        sessionId,
        head?.position ?? -1,
        record,
        (at) => (at === head?.position ? head.hash : null),
        { mayLag: true, signer: this.signer },
      );
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
    // A session exists once its first line is committed.
    return hasCommittedLine(this.sessionFile(sessionId));
  }

  async deleteSession(sessionId: string): Promise<void> {
    if (!SESSION_ID.test(sessionId)) return;
    const file = this.sessionFile(sessionId);
    await this.withSessionLock(sessionId, async () => {
      this.tails.delete(file);
      for (const path of [file, this.headFile(sessionId), this.legacyHeadFile(sessionId)]) {
        try {
          await unlink(path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        }
      }
    });
  }

  /** Forget cached tails and remove the lock files this process still keeps for idle sessions. */
  async close(): Promise<void> {
    this.tails.clear();
    releaseIdleLeases(this.rootDir);
  }

  private async withSessionLock<T>(sessionId: string, task: () => Promise<T>): Promise<T> {
    const file = this.sessionFile(sessionId);
    // The lock file is kept while appends follow each other at once (see file-lock-lease.ts).
    return withKeyedMutex(file, () => withFileLockLease(`${file}.lock`, sessionId, this.lockOptions, task));
  }

  /**
   * Read and verify entries `from <= position < from + limit`. A corruption found without the
   * lock is confirmed under it: a reader racing a writer that cuts a torn tail could otherwise
   * see a line made of the torn bytes and the new ones.
   */
  private async readVerified(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    if (!SESSION_ID.test(sessionId)) throw new SessionNotFoundError(sessionId);
    const file = this.sessionFile(sessionId);
    const read = async () => {
      const record = await this.readHeadRecord(sessionId);
      const bytes = await readSessionFile(sessionId, file).catch((error: unknown) => {
        if (error instanceof SessionNotFoundError && record !== null) return Buffer.alloc(0);
        throw error;
      });
      if (!bytes.includes(NEWLINE) && record !== null) {
        throw new LogCorruptError(
          sessionId,
          0,
          "every entry was removed but the log's recorded head remains",
        );
      }
      const decoded = decodeRange(sessionId, bytes, from, limit, record?.position ?? null);
      if (decoded.reachedEnd) {
        checkHeadRecord(sessionId, decoded.lines - 1, record, () => decoded.recordHash, {
          mayLag: true,
          signer: this.signer,
        });
      }
      return decoded.entries;
    };
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof LogCorruptError)) throw error;
      return this.withSessionLock(sessionId, read);
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
