/**
 * The PostgreSQL log as a fenced writer appends to it: each append runs in the group commit and
 * passes the fence first, in its own transaction, before the store compares the head. So a late
 * commit of a node (or an actor) whose lease was taken is refused as fenced (`WriteFencedError`)
 * whatever the new owner appended meanwhile, instead of losing the head compare and reading as
 * another writer's corruption of the log.
 *
 * Boundary rule: only the order of the fence and the append is this file's; the compare, the
 * insert and the head record are `PgStore.appendInTransaction`'s, reads are the store's.
 */
import type pg from "pg";
import type { HashedEntry, PositionedEntry } from "../../log/entries.js";
import type { HeadRecord } from "../../log/head-record.js";
import type { PgCommitQueue } from "../../log/pg-commit-queue.js";
import type { PgStore } from "../../log/pg-store.js";
import type { AlongsideWrites, AppendOptions, LogHead, Store } from "../../log/store.js";

/** The check an append runs first, in its transaction (throws to refuse it). */
export type AppendFence = (client: pg.PoolClient, sessionId: string) => Promise<void>;

export class FencedPgLog implements Store<pg.PoolClient> {
  readonly #log: PgStore;
  readonly #queue: PgCommitQueue;
  readonly #fence: AppendFence;

  /** Appends to `log` through `queue`, each behind `fence`. */
  constructor(log: PgStore, queue: PgCommitQueue, fence: AppendFence) {
    this.#log = log;
    this.#queue = queue;
    this.#fence = fence;
  }

  async append(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside?: AlongsideWrites<pg.PoolClient>,
    options: AppendOptions = {},
  ): Promise<LogHead> {
    const head = await this.#queue.run(sessionId, async (client) => {
      await this.#fence(client, sessionId);
      const appended = await this.#log.appendInTransaction(client, sessionId, entries);
      if (alongside !== undefined) await alongside(client, appended);
      return appended;
    });
    // PostgreSQL's COMMIT returns once the commit is durable: written and durable are one moment.
    options.onWritten?.(head);
    return head;
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

  /** Deletion is a fenced write of the storage (`PgSessionStorage.deleteSession`), never the writer's. */
  deleteSession(sessionId: string): Promise<void> {
    return Promise.reject(
      new Error(`session ${sessionId}: a session writer does not delete its log; the storage does`),
    );
  }

  /** The store is the storage's to close. */
  async close(): Promise<void> {}
}
