/**
 * The storage contract every session-log backend implements (JSONL files, SQLite, PostgreSQL).
 *
 * Boundary rule: a store moves hashed entries; it never builds them. Every read verifies the
 * chain it returns and throws `LogCorruptError` naming the session and position of the first
 * bad entry. Every append is a compare-and-append on the head hash and records the new head
 * beside the entries (see head-record.ts), so a log cut back at its tail is detected too.
 */
import type { Awaitable } from "./awaitable.js";
import type { CommitQueue, GroupCommitStats } from "./commit-queue.js";
import type { HashedEntry, PositionedEntry } from "./entries.js";
import type { HeadRecord } from "./head-record.js";

/** The last entry of a session's log. */
export interface LogHead {
  hash: string;
  /** 0-based position of the head entry; the log holds position + 1 entries. */
  position: number;
}

/**
 * Writes of the caller that must commit atomically with an append (e.g. the daemon's receipts
 * and turn rows): run inside the append's transaction, after the entries are inserted, with the
 * store's transaction handle and the new head. If they throw, the entries are rolled back too and
 * the append rejects with their error. What `Tx` is depends on the store (the SQLite connection,
 * a PostgreSQL client); a store without transactions (the JSONL files) takes none.
 */
export type AlongsideWrites<Tx> = (tx: Tx, head: LogHead) => void | Promise<void>;

/** What a caller of `append` may want to hear besides its result. */
export interface AppendOptions {
  /**
   * Called once the append's transaction has committed, possibly before it is durable (a store
   * that flushes its commits off the main thread resolves `append` only after the flush). A store
   * whose commit is durable when it returns calls it just before resolving. It must not throw.
   */
  onWritten?: (head: LogHead) => void;
}

export interface Store<Tx = unknown> {
  /**
   * Append entries atomically if and only if the session's current head hash equals
   * `entries[0].prev_hash` (null: the log must be empty, i.e. this creates the session).
   * The entries must chain to each other. On a mismatch nothing is written and
   * `AppendConflictError` is thrown. `alongside` commits with the entries (see above).
   */
  append(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside?: AlongsideWrites<Tx>,
    options?: AppendOptions,
  ): Promise<LogHead>;

  /** Every entry of the session, verified. Throws `SessionNotFoundError` if it has none. */
  readAll(sessionId: string): Promise<PositionedEntry[]>;

  /**
   * The head, or null when the session does not exist. The last entry is checked against the
   * store's recorded head (not the whole chain): a log cut back or extended behind the store's
   * back throws `LogCorruptError`.
   */
  readHead(sessionId: string): Promise<LogHead | null>;

  /** The recorded head as stored (with its signature, if it was signed), or null. Not checked. */
  readHeadRecord(sessionId: string): Promise<HeadRecord | null>;

  /**
   * Entries with `from <= position < from + limit`, verified within the range (each hash
   * recomputed, each link checked, the first against its predecessor when there is one).
   */
  readRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]>;

  /** Ids of all sessions, newest first (session ids are UUIDv7, so this is id order). */
  listSessions(): Promise<string[]>;

  exists(sessionId: string): Promise<boolean>;

  /** Remove a session's log entirely. Removing an unknown session is not an error. */
  deleteSession(sessionId: string): Promise<void>;

  close(): Promise<void>;
}

/**
 * A store whose writes can join the caller's own transactions: the database stores (SQLite,
 * PostgreSQL) as the daemon uses them, its rows committing with the log. Every write of the store
 * goes through its group commit (`commitQueue`), which the caller shares for its own writes; in
 * one of its writes (`tx`: the transaction's handle) the caller may append or delete alongside
 * anything else, and all of it commits or rolls back together.
 */
export interface TransactionalStore<Tx> extends Store<Tx> {
  /** The group commit this store's own appends and deletions run in; the caller's writes may share it. */
  readonly commitQueue: CommitQueue<Tx>;

  /**
   * Compare-and-append `entries` inside the transaction `tx` the caller holds (its commit makes
   * them durable with the caller's other writes), exactly as `append` would otherwise: on a stale
   * head it throws `AppendConflictError` having written nothing, and the caller may carry on.
   * Synchronous on a synchronous connection (SQLite), so it fits a SQLite write.
   */
  appendInTransaction(tx: Tx, sessionId: string, entries: readonly HashedEntry[]): Awaitable<LogHead>;

  /**
   * `appendInTransaction` for a write of the group commit that fails with whatever this throws
   * (the queue then rolls the whole write back, so the caller never carries on after a failed
   * append): the store needs no savepoint of its own around it.
   */
  appendInWrite(tx: Tx, sessionId: string, entries: readonly HashedEntry[]): Awaitable<LogHead>;

  /**
   * Remove the session's entries before position `upTo` inside the caller's transaction `tx`
   * (retention: the caller appends the `pruned` record naming this cut in the same transaction,
   * or the log no longer verifies; see pruned-log.ts). Returns how many rows went.
   */
  pruneInTransaction(tx: Tx, sessionId: string, upTo: number): Awaitable<number>;

  /** Remove the session's entries and recorded head inside the caller's transaction `tx`. */
  deleteInTransaction(tx: Tx, sessionId: string): Awaitable<void>;

  /**
   * Sign every recorded head that has no signature yet (heads written before this store had a
   * signer), each only after its whole log verified against it; a log that does not verify is
   * left as it is (it reads as corrupt). Returns the sessions whose heads were signed. Run once,
   * when a home starts signing: afterwards an unsigned head is corruption.
   */
  signUnsignedHeads(): Promise<string[]>;

  /** Transactions and writes of the group commit so far (for benchmarks and tests). */
  groupCommitStats(): GroupCommitStats;
}
