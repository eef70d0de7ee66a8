/**
 * The group commit (commit-queue.ts) on one SQLite connection: a batch is one IMMEDIATE
 * transaction (one fsync), each write a savepoint of it (a lone write needs none: if it throws,
 * the whole transaction is its own and rolls back). Whoever shares a connection shares its
 * queue (the SQLite store's appends and the daemon's own rows), so their writes of one turn still
 * cost one transaction.
 *
 * Boundary rule: a write must be synchronous (better-sqlite3 transactions cannot span an await):
 * one that returns a promise is refused (`AsyncSqliteWriteError`) and rolled back. With a
 * `durable` hook (a connection at synchronous=NORMAL whose log is flushed off the main thread,
 * see wal-sync.ts) a write resolves only once the hook says its transaction is on disk; the next
 * batch may commit meanwhile. With a `turn`, each batch commits in its turn of the log (another
 * connection writes the log now and then, see log-write-turn.ts); writes queue while it waits.
 */
import type Database from "better-sqlite3";
import type { Awaitable } from "./awaitable.js";
import {
  type BatchResult,
  type BatchScope,
  type BatchTransactions,
  CommitQueue,
  type QueuedWrite,
  type WriteOutcome,
} from "./commit-queue.js";
import type { LogWriteTurn } from "./log-write-turn.js";

/** SQLite rolled the group commit's transaction back under it (the cause is kept aside). */
class RolledBackError extends Error {
  constructor() {
    super("SQLite rolled the group commit transaction back");
    this.name = "RolledBackError";
  }
}

/** A write on a SQLite connection returned a promise: its transaction cannot wait for it. */
export class AsyncSqliteWriteError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId}: a write on a SQLite connection must be synchronous; nothing was written`);
    this.name = "AsyncSqliteWriteError";
  }
}

type Connection = Database.Database;

class SqliteTransactions implements BatchTransactions<Connection> {
  readonly #db: Connection;
  readonly #durable: (() => Promise<void>) | null;
  readonly #turn: LogWriteTurn | null;
  /** The error after which SQLite rolled back the current transaction, if it did. */
  #rollbackCause: unknown = null;
  readonly #savepoint: Database.Transaction<(write: QueuedWrite<Connection>) => unknown>;
  /** A lone write: the transaction is its own, so it needs no savepoint (two statements fewer). */
  readonly #aloneTx: Database.Transaction<
    (write: QueuedWrite<Connection>, scope: BatchScope<Connection>) => unknown
  >;
  /**
   * What the lone write in progress threw, if it threw (told apart from a failed BEGIN or
   * COMMIT), and whether SQLite had rolled the transaction back under it.
   */
  #aloneError: { error: unknown; rolledBack: boolean } | null = null;
  readonly #batchTx: Database.Transaction<
    (batch: readonly QueuedWrite<Connection>[], scope: BatchScope<Connection>) => WriteOutcome[]
  >;

  constructor(db: Connection, options: SqliteCommitQueueOptions) {
    this.#db = db;
    this.#durable = options.durable ?? null;
    this.#turn = options.turn ?? null;
    // Nested inside the batch's transaction, better-sqlite3 runs this as a savepoint.
    this.#savepoint = db.transaction((write: QueuedWrite<Connection>) => runSynchronously(db, write));
    this.#aloneTx = db.transaction((write: QueuedWrite<Connection>, scope: BatchScope<Connection>) => {
      scope.opened(db);
      try {
        return runSynchronously(db, write);
      } catch (error) {
        this.#aloneError = { error, rolledBack: !db.inTransaction };
        throw error;
      }
    });
    this.#batchTx = db.transaction(
      (batch: readonly QueuedWrite<Connection>[], scope: BatchScope<Connection>) => {
        scope.opened(db);
        const outcomes = batch.map((write): WriteOutcome => {
          // Some errors (disk full, I/O) make SQLite roll the whole transaction back; then nothing
          // of this batch is committed and going on would commit later writes on their own.
          if (!db.inTransaction) throw new RolledBackError();
          try {
            const value = this.#savepoint(write);
            scope.settled(true);
            return { value };
          } catch (error) {
            scope.settled(false);
            if (!db.inTransaction) this.#rollbackCause = error;
            return { error };
          }
        });
        if (!db.inTransaction) throw new RolledBackError();
        return outcomes;
      },
    );
  }

  commit(batch: readonly QueuedWrite<Connection>[], scope: BatchScope<Connection>): Awaitable<BatchResult> {
    const turn = this.#turn;
    if (turn === null) return this.#commitNow(batch, scope);
    const waiting = turn.acquire();
    if (waiting !== null) return waiting.then(() => this.commit(batch, scope));
    try {
      return this.#commitNow(batch, scope);
    } finally {
      turn.release();
    }
  }

  #commitNow(batch: readonly QueuedWrite<Connection>[], scope: BatchScope<Connection>): BatchResult {
    if (!this.#db.open) return { kind: "closed" };
    // Someone holds a transaction open across turns on this connection; wait for it to end.
    if (this.#db.inTransaction) return { kind: "busy" };
    if (batch.length === 1) return this.#commitAlone(batch[0]!, scope);
    let outcomes: WriteOutcome[];
    try {
      outcomes = this.#batchTx.immediate(batch, scope);
    } catch (error) {
      const cause = error instanceof RolledBackError ? (this.#rollbackCause ?? error) : error;
      this.#rollbackCause = null;
      throw cause;
    }
    return this.#committed(outcomes);
  }

  /**
   * One write in a transaction of its own: when it throws, the transaction rolls back (the
   * savepoint's effect) and it alone hears of it, unless SQLite had already rolled the
   * transaction back under it (disk full, I/O): then, as in a batch, the commit failed.
   */
  #commitAlone(write: QueuedWrite<Connection>, scope: BatchScope<Connection>): BatchResult {
    this.#aloneError = null;
    let value: unknown;
    try {
      value = this.#aloneTx.immediate(write, scope);
    } catch (error) {
      const thrown = this.#takeAloneError();
      // Not the write's own error (BEGIN or COMMIT failed), or SQLite rolled back on its own.
      if (thrown === null || thrown.error !== error || thrown.rolledBack) throw error;
      scope.settled(false);
      // Nothing was written: the write's error needs no flush.
      return { kind: "committed", outcomes: [{ error }], durable: null };
    }
    scope.settled(true);
    return this.#committed([{ value }]);
  }

  /** What the lone write threw (null: it did not throw), forgotten here. */
  #takeAloneError(): { error: unknown; rolledBack: boolean } | null {
    const thrown = this.#aloneError;
    this.#aloneError = null;
    return thrown;
  }

  #committed(outcomes: WriteOutcome[]): BatchResult {
    // The flush starts before the writers hear of the commit: one may take a while with it (a
    // turn builds and sends its model request), and the disk can work meanwhile.
    return { kind: "committed", outcomes, durable: this.#durable === null ? null : this.#durable() };
  }
}

/** Run `write` on `db`; one that returns a promise is refused (its transaction cannot wait for it). */
function runSynchronously(db: Connection, write: QueuedWrite<Connection>): unknown {
  const value = write.run(db);
  if (value instanceof Promise) {
    value.catch(() => undefined);
    throw new AsyncSqliteWriteError(write.sessionId);
  }
  return value;
}

/** How a queue commits (see SqliteCommitQueue's constructor). */
export interface SqliteCommitQueueOptions {
  durable?: () => Promise<void>;
  turn?: LogWriteTurn;
}

export class SqliteCommitQueue extends CommitQueue<Connection> {
  /**
   * A queue on `db`; `durable` resolves once what was committed before it was called is on disk;
   * each batch commits in its `turn` of the log, when given.
   */
  constructor(db: Connection, options: SqliteCommitQueueOptions = {}) {
    super(new SqliteTransactions(db, options));
  }
}
