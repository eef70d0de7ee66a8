/**
 * A session's log as its writer appends to it when something must come first in the append's
 * transaction, before the store compares the head: the fence (cluster mode: a late commit of a
 * node, or an actor, whose lease was taken is refused as fenced, `WriteFencedError`, whatever the
 * new owner appended meanwhile, instead of losing the head compare and reading as another
 * writer's corruption of the log), or a new session's row (so an id taken is refused as such,
 * not as a conflict with the existing log).
 *
 * Boundary rule: only the order of that step and the append is this file's; the compare, the
 * insert and the head record are the store's `appendInWrite`, reads are the store's.
 */
import { type Awaitable, andThen } from "../../log/awaitable.js";
import type { HashedEntry, PositionedEntry } from "../../log/entries.js";
import type { HeadRecord } from "../../log/head-record.js";
import type { AlongsideWrites, AppendOptions, LogHead, Store, TransactionalStore } from "../../log/store.js";

/** What an append runs first, in its transaction (throws to refuse it). */
export type BeforeAppend<Tx> = (tx: Tx, sessionId: string) => Awaitable<unknown>;

export class GuardedLog<Tx> implements Store<Tx> {
  readonly #log: TransactionalStore<Tx>;
  readonly #before: BeforeAppend<Tx>;

  /** Appends to `log` through its group commit, each after `before`. */
  constructor(log: TransactionalStore<Tx>, before: BeforeAppend<Tx>) {
    this.#log = log;
    this.#before = before;
  }

  append(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside?: AlongsideWrites<Tx>,
    options: AppendOptions = {},
  ): Promise<LogHead> {
    const log = this.#log;
    return log.commitQueue.run(
      sessionId,
      (tx) =>
        andThen(this.#before(tx, sessionId), () =>
          // The queue's write fails with the append: it needs no savepoint of its own.
          andThen(log.appendInWrite(tx, sessionId, entries), (head) =>
            alongside === undefined ? head : andThen(alongside(tx, head), () => head),
          ),
        ),
      options.onWritten,
    );
  }

  readAll(sessionId: string): Promise<PositionedEntry[]> {
    return this.#log.readAll(sessionId);
  }

  readHead(sessionId: string): Promise<LogHead | null> {
    return this.#log.readHead(sessionId);
  }

  readHeadRecord(sessionId: string): Promise<HeadRecord | null> {
    return this.#log.readHeadRecord(sessionId);
  }

  readRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    return this.#log.readRange(sessionId, from, limit);
  }

  listSessions(): Promise<string[]> {
    return this.#log.listSessions();
  }

  exists(sessionId: string): Promise<boolean> {
    return this.#log.exists(sessionId);
  }

  /** Deletion is a write of the storage (`SessionStorage.deleteSession`), never a writer's. */
  deleteSession(sessionId: string): Promise<void> {
    return Promise.reject(
      new Error(`session ${sessionId}: a session writer does not delete its log; the storage does`),
    );
  }

  /** The store is the storage's to close. */
  async close(): Promise<void> {}
}
