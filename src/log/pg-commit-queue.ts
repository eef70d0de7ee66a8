/**
 * Group commit on PostgreSQL: the writes queued while a transaction is in flight (many
 * sessions' appends and row writes) run together in the next one, each in its own savepoint
 * (a write that throws is rolled back alone and its caller gets its error while the others
 * commit), so N concurrent writes cost about one COMMIT instead of N.
 *
 * Boundary rule: scheduling only; what a write does is the caller's. One transaction is in
 * flight at a time, on one client of the pool: the writes of one node never wait on each
 * other's row locks, and the order writes were queued in is the order they commit in. A write
 * must use only the client it is given. What a write learns that holds until its transaction
 * ends (a row lock it took) it may note in the transaction's memo (`memoOf`) for the later writes
 * of the same transaction; a write rolled back to its savepoint takes its notes with it, as
 * PostgreSQL takes back its locks.
 */
import type pg from "pg";
import { GroupCommitFailedError } from "./errors.js";
import type { GroupCommitStats } from "./sqlite-commit-queue.js";

/** One write: statements on the transaction's client. */
export type PgWrite<T> = (client: pg.PoolClient) => Promise<T>;

type Outcome = { value: unknown } | { error: unknown };

/**
 * Facts established by the writes of one transaction, for its later writes (e.g. "this
 * session's lease is locked and ours"). A note made by a write that is rolled back is
 * forgotten with it; all notes end with the transaction.
 */
export interface PgTransactionMemo {
  /** Whether an earlier write of this transaction (or this write) noted `key`. */
  has(key: string): boolean;
  /** Note `key`; kept for the later writes only if this write commits its savepoint. */
  add(key: string): void;
  /** Forget `key` (it no longer holds within this transaction). */
  delete(key: string): void;
}

class TransactionMemo implements PgTransactionMemo {
  readonly #kept = new Set<string>();
  readonly #pending = new Set<string>();

  has(key: string): boolean {
    return this.#pending.has(key) || this.#kept.has(key);
  }

  add(key: string): void {
    this.#pending.add(key);
  }

  delete(key: string): void {
    this.#pending.delete(key);
    this.#kept.delete(key);
  }

  /** The current write ended: keep its notes if its savepoint was released, else drop them. */
  settle(committed: boolean): void {
    if (committed) for (const key of this.#pending) this.#kept.add(key);
    this.#pending.clear();
  }
}

interface QueuedWrite {
  sessionId: string;
  run: PgWrite<unknown>;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

/** The queue was closed and takes no more work. */
export class PgCommitQueueClosedError extends Error {
  constructor(readonly sessionId: string) {
    super(`the commit queue is closed (session ${sessionId})`);
    this.name = "PgCommitQueueClosedError";
  }
}

export class PgCommitQueue {
  readonly #pool: pg.Pool;
  #queue: QueuedWrite[] = [];
  #flushing: Promise<void> | null = null;
  #closed = false;
  /** The transaction in flight: its client and memo. */
  #current: { client: pg.PoolClient; memo: TransactionMemo } | null = null;
  readonly #stats: GroupCommitStats = { transactions: 0, requests: 0 };
  readonly #maxBatch: number;

  /** A queue on `pool`; at most `maxBatch` writes share one transaction. */
  constructor(pool: pg.Pool, options: { maxBatch?: number } = {}) {
    this.#pool = pool;
    this.#maxBatch = options.maxBatch ?? 256;
  }

  /**
   * Run `write` in the next group commit. Resolves with its result once committed; rejects with
   * what it threw (its statements rolled back) or with `GroupCommitFailedError` when the whole
   * transaction failed.
   */
  run<T>(sessionId: string, write: PgWrite<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new PgCommitQueueClosedError(sessionId));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        sessionId,
        run: write as PgWrite<unknown>,
        resolve: resolve as (value: never) => void,
        reject,
      });
      this.#kick();
    });
  }

  /**
   * The memo of the transaction in flight on `client`, or null when `client` holds none of
   * this queue's (a write is given that client, so only writes of the queue find one).
   */
  memoOf(client: pg.PoolClient): PgTransactionMemo | null {
    return this.#current?.client === client ? this.#current.memo : null;
  }

  /** Transactions and writes so far (for benchmarks and tests). */
  stats(): GroupCommitStats {
    return { ...this.#stats };
  }

  /** Commit what is queued now; later writes are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#flushing !== null) await this.#flushing;
  }

  #kick(): void {
    if (this.#flushing !== null) return;
    this.#flushing = (async () => {
      // Let the writes of this tick join the first transaction.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#maxBatch);
        await this.#commit(batch);
      }
      this.#flushing = null;
    })();
  }

  async #commit(batch: QueuedWrite[]): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      for (const write of batch) write.reject(new GroupCommitFailedError(write.sessionId, error));
      return;
    }
    const outcomes: Outcome[] = [];
    let broken = false;
    const memo = new TransactionMemo();
    this.#current = { client, memo };
    try {
      await client.query("BEGIN");
      // A lone write needs no savepoint: if it throws, the whole transaction is its own.
      const alone = batch.length === 1;
      for (const write of batch) {
        if (!alone) await client.query("SAVEPOINT w");
        try {
          const value = await write.run(client);
          if (!alone) await client.query("RELEASE SAVEPOINT w");
          memo.settle(true);
          outcomes.push({ value });
        } catch (error) {
          // The savepoint's locks are released with it: so are the write's notes.
          memo.settle(false);
          if (!alone) await client.query("ROLLBACK TO SAVEPOINT w");
          outcomes.push({ error });
        }
      }
      if (alone && "error" in outcomes[0]!) await client.query("ROLLBACK");
      else await client.query("COMMIT");
    } catch (error) {
      // The connection or the COMMIT failed: nothing of this batch is known to be committed.
      broken = true;
      await client.query("ROLLBACK").catch(() => undefined);
      client.release(error instanceof Error ? error : true);
      for (const write of batch) write.reject(new GroupCommitFailedError(write.sessionId, error));
      return;
    } finally {
      this.#current = null;
      if (!broken) client.release();
    }
    this.#stats.transactions++;
    this.#stats.requests += batch.length;
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i]!;
      if ("value" in outcome) batch[i]!.resolve(outcome.value as never);
      else batch[i]!.reject(outcome.error);
    }
  }
}
