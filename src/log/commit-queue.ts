/**
 * Group commit, one behaviour for every database backend: the writes queued while no transaction
 * of the queue was committing (at least one event-loop turn after the first of them) run together
 * in the next transaction, at most `maxBatch` of them, in the order they were queued, each in its
 * own savepoint, so a write that throws is rolled back alone and its caller gets its error while
 * the others commit. One transaction commits at a time; waiting for one to be durable does not
 * hold the next back (a backend that flushes off the main thread says so with `durable`).
 *
 * Boundary rule: scheduling only; what a write does is the caller's, and how a transaction and
 * its savepoints are spelled is the backend's (`BatchTransactions`: sqlite-commit-queue.ts,
 * pg-commit-queue.ts). A write uses only the transaction handle it is given. What a write learns
 * that holds until its transaction ends (a row lock it took) it may note in the transaction's
 * memo (`memoOf`) for the later writes of the same transaction; a write rolled back to its
 * savepoint takes its notes with it, as the database takes back its locks. A closed queue refuses
 * writes with `StoreClosedError`, after committing what was queued.
 */

import { unreachable } from "../model/unreachable.js";
import type { Awaitable } from "./awaitable.js";
import { GroupCommitFailedError, StoreClosedError } from "./errors.js";

/** How many transactions the queue ran for how many writes. */
export interface GroupCommitStats {
  transactions: number;
  requests: number;
}

/** One write: statements on the transaction's handle (`Tx`: a SQLite connection, a PostgreSQL client). */
export type CommitWrite<Tx, T> = (tx: Tx) => Awaitable<T>;

/** What one write of a batch came to. */
export type WriteOutcome = { value: unknown } | { error: unknown };

/** A queued write as a backend runs it. */
export interface QueuedWrite<Tx> {
  /** The session the write is about, for the error a failed commit reports. */
  readonly sessionId: string;
  readonly run: CommitWrite<Tx, unknown>;
}

/**
 * Facts established by the writes of one transaction, for its later writes (e.g. "this
 * session's lease is locked and ours"). A note made by a write that is rolled back is
 * forgotten with it; all notes end with the transaction.
 */
export interface TransactionMemo {
  /** Whether an earlier write of this transaction (or this write) noted `key`. */
  has(key: string): boolean;
  /** Note `key`; kept for the later writes only if this write commits its savepoint. */
  add(key: string): void;
  /** Forget `key` (it no longer holds within this transaction). */
  delete(key: string): void;
}

/** What the queue lends a backend while it runs one batch's transaction. */
export interface BatchScope<Tx> {
  /** The transaction is open on `tx`: from now on its writes find their memo (`memoOf`). */
  opened(tx: Tx): void;
  /** The current write ended: `committed` when its savepoint was released, false when rolled back. */
  settled(committed: boolean): void;
}

/** How a batch's transaction ended. */
export type BatchResult =
  /** Committed; `durable` (when the backend flushes later) resolves once it is on disk. */
  | { kind: "committed"; outcomes: WriteOutcome[]; durable: Promise<void> | null }
  /** The connection holds another transaction: the batch waits for the next turn. */
  | { kind: "busy" }
  /** The connection is closed: the batch is refused. */
  | { kind: "closed" };

/** A backend's transactions: one batch in one transaction, each write in its own savepoint. */
export interface BatchTransactions<Tx> {
  /** Run `batch` and commit; throws when the transaction as a whole failed (nothing is known committed). */
  commit(batch: readonly QueuedWrite<Tx>[], scope: BatchScope<Tx>): Awaitable<BatchResult>;
}

interface PendingWrite<Tx> extends QueuedWrite<Tx> {
  /** Told the write's result once its transaction committed, before it is durable. */
  onWritten: ((value: never) => void) | undefined;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

class Memo implements TransactionMemo {
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

export class CommitQueue<Tx> {
  readonly #transactions: BatchTransactions<Tx>;
  readonly #maxBatch: number;
  #queue: PendingWrite<Tx>[] = [];
  /** The drain loop while one runs (it ends when the queue is empty). */
  #draining: Promise<void> | null = null;
  #closed = false;
  /** The transaction in flight: its handle and memo. */
  #current: { tx: Tx; memo: Memo } | null = null;
  readonly #stats: GroupCommitStats = { transactions: 0, requests: 0 };

  /** A queue over a backend's `transactions`; at most `maxBatch` writes share one (default: no bound). */
  constructor(transactions: BatchTransactions<Tx>, options: { maxBatch?: number } = {}) {
    this.#transactions = transactions;
    this.#maxBatch = options.maxBatch ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Run `write` in the next group commit. Resolves with its result once committed (and durable,
   * when the backend flushes later); rejects with what it threw (its writes rolled back), with
   * `GroupCommitFailedError` when the whole transaction failed or did not become durable, or with
   * `StoreClosedError` once the queue is closed. `onWritten` hears the result as soon as the
   * transaction committed (before it is durable); if it throws, the write rejects with that.
   */
  run<T>(sessionId: string, write: CommitWrite<Tx, T>, onWritten?: (value: T) => void): Promise<T> {
    if (this.#closed) return Promise.reject(new StoreClosedError(sessionId));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({
        sessionId,
        run: write,
        onWritten: onWritten as ((value: never) => void) | undefined,
        resolve: resolve as (value: never) => void,
        reject,
      });
      if (this.#draining === null) this.#draining = this.#drain();
    });
  }

  /**
   * The memo of the transaction in flight on `tx`, or null when `tx` holds none of this queue's
   * (a write is given that handle, so only writes of the queue find one).
   */
  memoOf(tx: Tx): TransactionMemo | null {
    return this.#current?.tx === tx ? this.#current.memo : null;
  }

  /** Transactions and writes so far (for benchmarks and tests). */
  stats(): GroupCommitStats {
    return { ...this.#stats };
  }

  /** Refuse later writes; resolves once what was queued has committed (or failed). */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#draining !== null) await this.#draining;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      // Let the writes of this turn join the transaction.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const batch = this.#queue.splice(0, this.#maxBatch);
      const committing = this.#commit(batch);
      if (committing instanceof Promise) await committing;
    }
    // Set in the same step as the empty queue was seen: a write queued later starts a new loop.
    this.#draining = null;
  }

  #commit(batch: PendingWrite<Tx>[]): Awaitable<void> {
    const memo = new Memo();
    const scope: BatchScope<Tx> = {
      opened: (tx) => {
        this.#current = { tx, memo };
      },
      settled: (committed) => memo.settle(committed),
    };
    let result: Awaitable<BatchResult>;
    try {
      result = this.#transactions.commit(batch, scope);
    } catch (error) {
      this.#current = null;
      failAll(batch, error);
      return;
    }
    if (!(result instanceof Promise)) {
      this.#current = null;
      this.#ended(batch, result);
      return;
    }
    return result.then(
      (ended) => {
        this.#current = null;
        this.#ended(batch, ended);
      },
      (error: unknown) => {
        this.#current = null;
        failAll(batch, error);
      },
    );
  }

  #ended(batch: PendingWrite<Tx>[], result: BatchResult): void {
    switch (result.kind) {
      case "busy":
        if (this.#closed) refuseAll(batch);
        else this.#queue.unshift(...batch);
        return;
      case "closed":
        refuseAll(batch);
        return;
      case "committed": {
        this.#stats.transactions++;
        this.#stats.requests += batch.length;
        const { outcomes, durable } = result;
        tellWritten(batch, outcomes);
        if (durable === null) {
          settle(batch, outcomes);
          return;
        }
        durable.then(
          () => settle(batch, outcomes),
          (error: unknown) => failAll(batch, error),
        );
        return;
      }
      default:
        unreachable(result, "unknown batch result");
    }
  }
}

function failAll<Tx>(batch: readonly PendingWrite<Tx>[], cause: unknown): void {
  for (const write of batch) write.reject(new GroupCommitFailedError(write.sessionId, cause));
}

function refuseAll<Tx>(batch: readonly PendingWrite<Tx>[]): void {
  for (const write of batch) write.reject(new StoreClosedError(write.sessionId));
}

/**
 * Tell each committed write's `onWritten`. One that throws turns its write's outcome into that
 * error (its rows are committed, but its caller did not take them in).
 */
function tellWritten<Tx>(batch: readonly PendingWrite<Tx>[], outcomes: WriteOutcome[]): void {
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

function settle<Tx>(batch: readonly PendingWrite<Tx>[], outcomes: readonly WriteOutcome[]): void {
  for (let i = 0; i < batch.length; i++) {
    const outcome = outcomes[i]!;
    if ("value" in outcome) batch[i]!.resolve(outcome.value as never);
    else batch[i]!.reject(outcome.error);
  }
}
