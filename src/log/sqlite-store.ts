/**
 * The SQLite store: every session's log in one `transcript` table, one row per entry.
 *
 * Boundary rule: durability is SQLite's (WAL, synchronous=FULL); a compare-and-append is one
 * IMMEDIATE transaction that reads the head, compares and inserts, with UNIQUE(session,
 * position) as a backstop. The async `append` group-commits: everything queued in one tick is
 * written in one transaction, each request inside its own savepoint so a conflicting request
 * fails alone. The `entry` column holds the canonical JSON that was hashed, so reads verify the
 * stored text itself. A daemon sharing the database shares the group commit and appends inside
 * its own writes with `appendInTransaction` (see `TransactionalStore`).
 */
import Database from "better-sqlite3";
import type { GroupCommitStats } from "./commit-queue.js";
import type { HashedEntry, PositionedEntry } from "./entries.js";
import {
  AppendConflictError,
  InvalidAppendError,
  LogCorruptError,
  SessionNotFoundError,
  StoreClosedError,
} from "./errors.js";
import { checkedLastRow, checkHeadRecord, type HeadRecord } from "./head-record.js";
import type { HeadSigner } from "./head-signer.js";
import type { PreparedEntry } from "./prepared-append.js";
import { prepareAppend } from "./prepared-append.js";
import { SqliteCommitQueue } from "./sqlite-commit-queue.js";
import { SqliteHeadRecords } from "./sqlite-head-records.js";
import { readPageRowsOf, SqlitePagedRead } from "./sqlite-paged-read.js";
import { SqliteRowInserts } from "./sqlite-row-inserts.js";
import type { AlongsideWrites, AppendOptions, LogHead, TransactionalStore } from "./store.js";
import { backfillRecordedHeads, transcriptTables } from "./transcript-schema.js";

/**
 * Create the `transcript` table and its recorded heads (`transcript_heads`) if they do not exist
 * (idempotent). A database from before recorded heads gets one per session, from its last entry.
 */
export function createTranscriptSchema(db: Database.Database): void {
  const hadHeads =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'transcript_heads'").get() !==
    undefined;
  for (const statement of transcriptTables("sqlite")) db.exec(statement);
  if (!hadHeads) db.exec(backfillRecordedHeads);
}

export interface SqliteStoreOptions {
  /** How long a writer waits for another connection's write lock (ms). */
  busyTimeoutMs?: number;
  /** Signs every recorded head and checks signatures on read (see head-signer.ts). */
  signer?: HeadSigner;
  /**
   * The group commit of the connection, when others write on it too (the daemon's own rows):
   * shared, their writes and these appends of one tick cost one transaction. Default: the
   * store's own.
   */
  commitQueue?: SqliteCommitQueue;
  /**
   * Rows fetched per query when a read verifies a log (default 256): rows are verified page by
   * page so their column values die young instead of all staying alive until the last row.
   */
  readPageRows?: number;
}

/** What the SQLite store gives writes that commit with an append: the connection, inside the transaction. */
export type SqliteTransaction = Database.Database;

export class SqliteStore implements TransactionalStore<SqliteTransaction> {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  readonly commitQueue: SqliteCommitQueue;
  private readonly ownsQueue: boolean;
  private closed = false;

  private readonly signer: HeadSigner | undefined;
  private readonly heads: SqliteHeadRecords;
  private readonly readAllTx: Database.Transaction<(sessionId: string) => PositionedEntry[]>;
  private readonly readHeadTx: Database.Transaction<(sessionId: string) => LogHead | null>;
  private readonly insertRows: SqliteRowInserts;
  private readonly pages: SqlitePagedRead;
  private readonly selectSessions: Database.Statement<[], string>;
  private readonly selectExists: Database.Statement<[string], number>;
  private readonly deleteTx: Database.Transaction<(sessionId: string) => void>;
  private readonly deleteBefore: Database.Statement<[string, number]>;
  private readonly compareAndInsertTx: Database.Transaction<
    (sessionId: string, prepared: PreparedEntry[], alongside?: AlongsideWrites<SqliteTransaction>) => LogHead
  >;
  private readonly readRangeTx: Database.Transaction<
    (sessionId: string, from: number, limit: number) => PositionedEntry[]
  >;

  /**
   * A store on a database file (opened with WAL, synchronous=FULL, a busy timeout and temp_store=MEMORY,
   * so commits never spill undo pages to a file outside the database's directory) or on a
   * database the caller already opened and configures (e.g. the daemon's; it stays open on close()).
   */
  constructor(database: string | Database.Database, options: SqliteStoreOptions = {}) {
    if (typeof database === "string") {
      this.db = new Database(database);
      this.ownsDb = true;
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = FULL");
      this.db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 10_000)}`);
      this.db.pragma("temp_store = MEMORY");
    } else {
      this.db = database;
      this.ownsDb = false;
    }
    this.signer = options.signer;
    const pageRows = readPageRowsOf(options.readPageRows);
    this.ownsQueue = options.commitQueue === undefined;
    this.commitQueue = options.commitQueue ?? new SqliteCommitQueue(this.db);
    createTranscriptSchema(this.db);
    const db = this.db;
    const heads = new SqliteHeadRecords(db);
    this.heads = heads;
    this.insertRows = new SqliteRowInserts(db);
    this.pages = new SqlitePagedRead(db, pageRows);
    this.selectSessions = db
      .prepare<[], string>("SELECT DISTINCT session FROM transcript ORDER BY session DESC")
      .pluck(true);
    this.selectExists = db
      .prepare<[string], number>("SELECT 1 FROM transcript WHERE session = ? LIMIT 1")
      .pluck(true);
    const deleteRows = db.prepare("DELETE FROM transcript WHERE session = ?");
    const deleteCheckpoint = db.prepare("DELETE FROM transcript_checkpoints WHERE session = ?");
    this.deleteBefore = db.prepare("DELETE FROM transcript WHERE session = ? AND position < ?");
    this.deleteTx = db.transaction((sessionId: string) => {
      deleteRows.run(sessionId);
      heads.remove(sessionId);
      deleteCheckpoint.run(sessionId);
    });
    // Nested inside another transaction, better-sqlite3 runs this as a savepoint.
    this.compareAndInsertTx = db.transaction(
      (sessionId: string, prepared: PreparedEntry[], alongside?: AlongsideWrites<SqliteTransaction>) =>
        this.compareAndInsertWith(sessionId, prepared, alongside),
    );
    this.readRangeTx = db.transaction((sessionId: string, from: number, limit: number) =>
      this.readRangeUnlocked(sessionId, from, limit),
    );
    // Read transactions: the entries and the recorded head come from one snapshot.
    this.readAllTx = db.transaction((sessionId: string) => this.readAllUnlocked(sessionId));
    this.readHeadTx = db.transaction((sessionId: string) => this.readHeadUnlocked(sessionId));
  }

  groupCommitStats(): GroupCommitStats {
    return this.commitQueue.stats();
  }

  /**
   * Group-committed compare-and-append; `alongside` (optional, synchronous) runs in the same
   * savepoint with the connection, so other writes of the caller commit or roll back together
   * with these entries.
   */
  async append(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside?: AlongsideWrites<SqliteTransaction>,
    options: AppendOptions = {},
  ): Promise<LogHead> {
    if (this.closed) throw new StoreClosedError(sessionId);
    const prepared = prepareAppend(sessionId, entries);
    // The queue runs each write in its own savepoint already: a second one inside it would only
    // cost two more statements per commit.
    return this.commitQueue.run(
      sessionId,
      () => this.compareAndInsertWith(sessionId, prepared, alongside),
      options.onWritten,
    );
  }

  /**
   * Compare-and-append synchronously on `db` (this store's connection), as a savepoint of the
   * transaction the caller holds (its commit makes the entries durable with its other writes);
   * outside any transaction it is its own IMMEDIATE one. Throws `AppendConflictError` on a stale
   * head.
   */
  appendInTransaction(db: SqliteTransaction, sessionId: string, entries: readonly HashedEntry[]): LogHead {
    this.requireOwnConnection(db);
    const prepared = prepareAppend(sessionId, entries);
    return db.inTransaction
      ? this.compareAndInsertTx(sessionId, prepared, undefined)
      : this.compareAndInsertTx.immediate(sessionId, prepared, undefined);
  }

  /**
   * Compare-and-append on `db` inside a write of the group commit that fails with this (see
   * `TransactionalStore.appendInWrite`): no savepoint, two statements fewer than
   * `appendInTransaction`; outside any transaction it is its own IMMEDIATE one.
   */
  appendInWrite(db: SqliteTransaction, sessionId: string, entries: readonly HashedEntry[]): LogHead {
    this.requireOwnConnection(db);
    if (!db.inTransaction) return this.appendInTransaction(db, sessionId, entries);
    return this.compareAndInsert(sessionId, prepareAppend(sessionId, entries));
  }

  /** Delete the session's entries and recorded head on `db`, in the caller's transaction (or its own). */
  deleteInTransaction(db: SqliteTransaction, sessionId: string): void {
    this.requireOwnConnection(db);
    this.deleteTx(sessionId);
  }

  /** Remove the session's entries before `upTo` on `db`, in the caller's transaction (retention; see pruned-log.ts). */
  pruneInTransaction(db: SqliteTransaction, sessionId: string, upTo: number): number {
    this.requireOwnConnection(db);
    return this.deleteBefore.run(sessionId, upTo).changes;
  }

  async readAll(sessionId: string): Promise<PositionedEntry[]> {
    return this.readAllTx(sessionId);
  }

  async readHeadRecord(sessionId: string): Promise<HeadRecord | null> {
    return this.heads.read(sessionId);
  }

  /** One read transaction, so the range and its predecessor agree. */
  async readRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    if (!Number.isInteger(from) || from < 0 || !(limit >= 0)) {
      throw new RangeError(`invalid range from=${from} limit=${limit}`);
    }
    return this.readRangeTx(sessionId, from, limit);
  }

  async readHead(sessionId: string): Promise<LogHead | null> {
    return this.readHeadTx(sessionId);
  }

  async listSessions(): Promise<string[]> {
    return this.selectSessions.all();
  }

  async exists(sessionId: string): Promise<boolean> {
    return this.hasEntries(sessionId);
  }

  /** Group-committed, like an append. */
  deleteSession(sessionId: string): Promise<void> {
    if (this.closed) return Promise.reject(new StoreClosedError(sessionId));
    return this.commitQueue.run(sessionId, () => this.deleteTx(sessionId));
  }

  /** Each head in its own IMMEDIATE transaction, signed only if it is still the one verified. */
  async signUnsignedHeads(): Promise<string[]> {
    const signer = this.signer;
    if (signer === undefined) throw new Error("signUnsignedHeads needs a store with a signer");
    const sessions = this.heads.unsigned();
    const signed: string[] = [];
    const signOne = this.db.transaction((sessionId: string) => {
      let last: PositionedEntry;
      try {
        const entries = this.pages.verifyAll(sessionId);
        if (entries.length === 0) return;
        last = entries[entries.length - 1]!;
        checkHeadRecord(
          sessionId,
          last.position,
          this.heads.read(sessionId),
          (at) => entries[at - entries[0]!.position]?.hash,
          {
            signer,
            allowUnsigned: true,
          },
        );
      } catch (error) {
        if (error instanceof LogCorruptError) return;
        throw error;
      }
      if (this.heads.sign(sessionId, last, signer.sign(sessionId, last.position, last.hash)))
        signed.push(sessionId);
    });
    for (const sessionId of sessions) signOne.immediate(sessionId);
    return signed;
  }

  /** Commit what is queued (when the queue is the store's own), then close the database if this store opened it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsQueue) await this.commitQueue.close();
    if (this.ownsDb) this.db.close();
  }

  /** `true` when the session has at least one entry. */
  private hasEntries(sessionId: string): boolean {
    return this.selectExists.get(sessionId) !== undefined;
  }

  private requireOwnConnection(db: SqliteTransaction): void {
    if (db !== this.db) throw new Error("a SQLite store writes only on its own connection");
  }

  /** Compare-and-insert, then `alongside`, in the caller's transaction or savepoint (which must exist). */
  private compareAndInsertWith(
    sessionId: string,
    prepared: readonly PreparedEntry[],
    alongside: AlongsideWrites<SqliteTransaction> | undefined,
  ): LogHead {
    const head = this.compareAndInsert(sessionId, prepared);
    if (alongside !== undefined) requireSynchronous(sessionId, alongside(this.db, head));
    return head;
  }

  private compareAndInsert(sessionId: string, prepared: readonly PreparedEntry[]): LogHead {
    // The entries must still end where the recorded head says before anything is chained on.
    const head = this.readHeadUnlocked(sessionId);
    const expected = prepared[0]!.hashed.prev_hash;
    const actual = head?.hash ?? null;
    if (actual !== expected) throw new AppendConflictError(sessionId, expected, actual);
    const first = head === null ? 0 : head.position + 1;
    this.insertRows.insert(sessionId, first, prepared, Date.now());
    const last = { hash: prepared[prepared.length - 1]!.hashed.hash, position: first + prepared.length - 1 };
    this.heads.write(sessionId, last, this.signer?.sign(sessionId, last.position, last.hash) ?? null);
    return last;
  }

  private readAllUnlocked(sessionId: string): PositionedEntry[] {
    const entries = this.pages.verifyAll(sessionId);
    if (entries.length === 0) {
      if (this.heads.read(sessionId) !== null) {
        throw new LogCorruptError(
          sessionId,
          0,
          "every entry was removed but the log's recorded head remains",
        );
      }
      throw new SessionNotFoundError(sessionId);
    }
    const last = entries[entries.length - 1]!;
    checkHeadRecord(
      sessionId,
      last.position,
      this.heads.read(sessionId),
      (at) => entries[at - entries[0]!.position]?.hash,
      {
        signer: this.signer,
      },
    );
    return entries;
  }

  /** The last entry, checked against the recorded head (cheap: one statement, two indexed lookups, no chain walk). */
  private readHeadUnlocked(sessionId: string): LogHead | null {
    const { last, record } = this.heads.readWithLast(sessionId);
    return checkedLastRow(sessionId, last, record, this.signer);
  }

  private readRangeUnlocked(sessionId: string, from: number, limit: number): PositionedEntry[] {
    const end = Math.min(from + limit, Number.MAX_SAFE_INTEGER);
    let start = from;
    let rows = this.pages.firstPage(sessionId, from, end);
    let prevHash = this.pages.predecessorHash(sessionId, from);
    // A range reaching before a pruned log's cut starts at the cut, chained to the hash it names.
    const beforeCut = prevHash === undefined || (from === 0 && rows[0]?.[0] !== 0);
    const cut = beforeCut ? this.pages.latestCut(sessionId) : null;
    // Of a range starting exactly at the cut, too: the entry before it is gone.
    if (cut !== null && from <= cut.upTo) {
      if (end <= cut.upTo) return [];
      start = cut.upTo;
      prevHash = cut.cutHash;
      rows = this.pages.firstPage(sessionId, start, end);
    }
    if (prevHash === undefined) {
      if (rows.length > 0) throw new LogCorruptError(sessionId, from - 1, "the entry is missing");
      if (!this.hasEntries(sessionId)) throw new SessionNotFoundError(sessionId);
      return [];
    }
    if (from === 0 && rows.length === 0 && !this.hasEntries(sessionId)) {
      throw new SessionNotFoundError(sessionId);
    }
    const entries = this.pages.verifyPages(sessionId, start, end, prevHash, rows);
    // A short range must really be the end of the log: not a gap before later entries, nor a
    // log cut back before its recorded head.
    if (entries.length < end - start) {
      const head = this.readHeadUnlocked(sessionId);
      const missing = start + entries.length;
      if (head !== null && head.position >= missing) {
        throw new LogCorruptError(sessionId, missing, "the entry is missing");
      }
    }
    return entries;
  }
}

/** better-sqlite3 transactions cannot span an await: writes that commit with an append are synchronous. */
function requireSynchronous(sessionId: string, result: unknown): void {
  if (result instanceof Promise) {
    result.catch(() => undefined);
    throw new InvalidAppendError(sessionId, -1, "writes alongside a SQLite append must be synchronous");
  }
}
