/**
 * Group commit on one SQLite connection: every write queued in one event-loop tick runs in one
 * IMMEDIATE transaction (one fsync), each in its own savepoint, so a write that throws is rolled
 * back alone and its caller gets its error while the others commit.
 *
 * Boundary rule: scheduling only; what a write does is the caller's. Whoever shares a
 * connection shares its queue (the SQLite store's appends and the daemon's own rows), so their
 * writes of one tick still cost one transaction. A write must be synchronous: better-sqlite3
 * transactions cannot span an await. With a `durable` hook (a connection at synchronous=NORMAL
 * whose log is flushed off the main thread, see wal-sync.ts) a write resolves only once the hook
 * says its transaction is on disk; the next batch may commit meanwhile.
 */
import type Database from "better-sqlite3";
import { GroupCommitFailedError } from "./errors.js";

/** How many transactions the queue ran for how many writes. */
export interface GroupCommitStats {
  transactions: number;
  requests: number;
}

type Outcome = { value: unknown } | { error: unknown };

interface QueuedWrite {
  /** The session the write is about, for the error a failed commit reports. */
  sessionId: string;
  run: () => unknown;
  /** Told the write's result once its transaction committed, before it is durable. */
  onWritten: ((value: never) => void) | undefined;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

/** SQLite rolled the group commit's transaction back under it (the cause is kept aside). */
class RolledBackError extends Error {
  constructor() {
    super("SQLite rolled the group commit transaction back");
    this.name = "RolledBackError";
  }
}

/** The queue was closed and takes no more work. */
export class CommitQueueClosedError extends Error {
  constructor(readonly sessionId: string) {
    super(`the commit queue is closed (session ${sessionId})`);
    this.name = "CommitQueueClosedError";
  }
}

export class SqliteCommitQueue {
  readonly #db: Database.Database;
  readonly #durable: (() => Promise<void>) | null;
  #queue: QueuedWrite[] = [];
  #flushScheduled = false;
  #closed = false;
  /** The error after which SQLite rolled back the current transaction, if it did. */
  #rollbackCause: unknown = null;
  readonly #stats: GroupCommitStats = { transactions: 0, requests: 0 };
  readonly #savepoint: Database.Transaction<(run: () => unknown) => unknown>;
  readonly #flushTx: Database.Transaction<(batch: QueuedWrite[]) => Outcome[]>;

  /** A queue on `db`; `durable` resolves once what was committed before it was called is on disk. */
  constructor(db: Database.Database, options: { durable?: () => Promise<void> } = {}) {
    this.#db = db;
    this.#durable = options.durable ?? null;
    // Nested inside the flush's transaction, better-sqlite3 runs this as a savepoint.
    this.#savepoint = db.transaction((run: () => unknown) => run());
    this.#flushTx = db.transaction((batch: QueuedWrite[]) => {
      const outcomes = batch.map((write): Outcome => {
        // Some errors (disk full, I/O) make SQLite roll the whole transaction back; then nothing
        // of this batch is committed and going on would commit later writes on their own.
        if (!db.inTransaction) throw new RolledBackError();
        try {
          return { value: this.#savepoint(write.run) };
        } catch (error) {
          if (!db.inTransaction) this.#rollbackCause = error;
          return { error };
        }
      });
      if (!db.inTransaction) throw new RolledBackError();
      return outcomes;
    });
  }

  /**
   * Run `write` in the next group commit. Resolves with its result once committed (and durable,
   * with a `durable` hook); rejects with what it threw (its writes rolled back) or with
   * `GroupCommitFailedError` when the whole transaction failed or did not become durable.
   * `onWritten` hears the result as soon as the transaction committed (before it is durable).
   */
  run<T>(sessionId: string, write: () => T, onWritten?: (value: T) => void): Promise<T> {
    if (this.#closed) return Promise.reject(new CommitQueueClosedError(sessionId));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        sessionId,
        run: write,
        onWritten: onWritten as ((value: never) => void) | undefined,
        resolve: resolve as (value: never) => void,
        reject,
      });
      this.#scheduleFlush();
    });
  }

  /** Transactions and writes so far (for benchmarks and tests). */
  stats(): GroupCommitStats {
    return { ...this.#stats };
  }

  /** Commit what is queued now; later writes are refused. */
  close(): void {
    if (this.#closed) return;
    if (!this.#db.inTransaction) this.#flush();
    this.#closed = true;
    for (const write of this.#queue.splice(0)) write.reject(new CommitQueueClosedError(write.sessionId));
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    if (this.#queue.length === 0 || !this.#db.open) return;
    if (this.#db.inTransaction) {
      // Someone holds a transaction open across ticks on this connection; wait for it to end.
      this.#scheduleFlush();
      return;
    }
    const batch = this.#queue;
    this.#queue = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.#flushTx.immediate(batch);
    } catch (error) {
      const cause = error instanceof RolledBackError ? (this.#rollbackCause ?? error) : error;
      this.#rollbackCause = null;
      for (const write of batch) write.reject(new GroupCommitFailedError(write.sessionId, cause));
      return;
    }
    this.#stats.transactions++;
    this.#stats.requests += batch.length;
    // The flush starts before the writers hear of the commit: one may take a while with it (a
    // turn builds and sends its model request), and the disk can work meanwhile.
    const durable = this.#durable === null ? null : this.#durable();
    tellWritten(batch, outcomes);
    if (durable === null) {
      settle(batch, outcomes);
      return;
    }
    durable.then(
      () => settle(batch, outcomes),
      (error: unknown) => {
        for (const write of batch) write.reject(new GroupCommitFailedError(write.sessionId, error));
      },
    );
  }
}

/**
 * Tell each committed write's `onWritten`. One that throws turns its write's outcome into that
 * error (its rows are committed, but its caller did not take them in).
 */
function tellWritten(batch: readonly QueuedWrite[], outcomes: Outcome[]): void {
  for (let i = 0; i < batch.length; i++) {
    const { onWritten } = batch[i]!;
    const outcome = outcomes[i]!;
    if (onWritten === undefined || !("value" in outcome)) continue;
    try {
      onWritten(outcome.value as never);
    } catch (error) {
      outcomes[i] = { error };
    }
  }
}

function settle(batch: readonly QueuedWrite[], outcomes: readonly Outcome[]): void {
  for (let i = 0; i < batch.length; i++) {
    const outcome = outcomes[i]!;
    if ("value" in outcome) batch[i]!.resolve(outcome.value as never);
    else batch[i]!.reject(outcome.error);
  }
}
