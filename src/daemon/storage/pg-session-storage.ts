/**
 * The storage port on PostgreSQL: the log's `transcript` tables (through `PgStore`) and the
 * daemon's tables in one database, written through one group commit (pg-commit-queue.ts), so
 * the writes of many sessions queued while a transaction is in flight share the next one, and a
 * session's log and its rows never disagree. The table logic is the same SQL programs the
 * SQLite backend runs.
 *
 * Boundary rule: the only file that composes the programs into PostgreSQL transactions;
 * everything above it speaks through `SessionStorage`.
 */
import type pg from "pg";
import type { InputReceipt } from "../../api/inputs.js";
import type { SessionPreview } from "../../api/session-snapshot.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import { buildChain } from "../../log/entry-hash.js";
import type { HeadRecord } from "../../log/head-record.js";
import type { HeadSigner } from "../../log/head-signer.js";
import { PgCommitQueue } from "../../log/pg-commit-queue.js";
import { PgStore } from "../../log/pg-store.js";
import { SessionWriter } from "../../log/session-writer.js";
import type { LogHead } from "../../log/store.js";
import { checkDeliveredWithin, lastDeliveredInputProgram } from "./delivery-evidence.js";
import { FencedPgLog } from "./fenced-pg-log.js";
import {
  type Admission,
  cancelInputProgram,
  cancelInputsThroughProgram,
  getReceiptProgram,
  type InputRow,
  listPendingInputsProgram,
  type NewInput,
  sessionsWithPendingInputsProgram,
} from "./inputs-table.js";
import { runPg } from "./pg-runner.js";
import {
  getRejectionProgram,
  type RejectedCreation,
  recordRejectionProgram,
} from "./rejected-creations-table.js";
import {
  admitAndTouchProgram,
  createSessionRowProgram,
  deleteSessionProgram,
  finishSessionCreationProgram,
  rowWritesProgram,
} from "./row-writes.js";
import type {
  InputCancellation,
  RowWrites,
  SessionStorage,
  StoredSessionWriter,
  WriteFence,
} from "./session-storage.js";
import {
  getSessionProgram,
  listSessionsProgram,
  type NewSession,
  type SessionListFilter,
  type SessionRow,
  setPreviewProgram,
  tablesWithSessionColumnProgram,
} from "./sessions-table.js";
import { failTurnProgram, runningTurnOfProgram, runningTurnsProgram, type TurnRow } from "./turns-table.js";

/** What every view of one storage shares: the pool's group commit, its fence and its caches. */
interface SharedState {
  log: PgStore;
  queue: PgCommitQueue;
  fence: WriteFence<pg.PoolClient> | null;
  /** The daemon tables with a `session` column, found at the first deletion. */
  sessionTables: string[] | null;
}

export class PgSessionStorage implements SessionStorage {
  readonly pool: pg.Pool;
  #shared: SharedState;
  /** The lease epoch this view's writes are fenced at (undefined: the node's, for writes outside an actor). */
  #epoch: number | undefined = undefined;

  /** Storage on a migrated pool (see pg-database.ts); it ends the pool on close(). */
  constructor(pool: pg.Pool, options: { signer?: HeadSigner } = {}) {
    this.pool = pool;
    const queue = new PgCommitQueue(pool);
    const log = new PgStore(pool, { commitQueue: queue, ownsPool: false, ...options });
    this.#shared = { log, queue, fence: null, sessionTables: null };
  }

  /** The log store (every view shares it). */
  get log(): PgStore {
    return this.#shared.log;
  }

  /** From now on every write of a session first passes `fence` in its transaction (cluster mode). */
  fenceWith(fence: WriteFence<pg.PoolClient>): void {
    this.#shared.fence = fence;
  }

  forLease(epoch: number): SessionStorage {
    if (this.#shared.fence === null) return this;
    const view = new PgSessionStorage(this.pool);
    // The same log store, group commit and fence: only the epoch its writes carry differs.
    view.#shared = this.#shared;
    view.#epoch = epoch;
    return view;
  }

  async confirmLease(sessionId: string): Promise<void> {
    const fence = this.#shared.fence;
    if (fence === null) return;
    const client = await this.pool.connect();
    try {
      await fence.check(client, sessionId, this.#epoch ?? fence.heldEpoch(sessionId));
    } finally {
      client.release();
    }
  }

  /** Run `write` for `sessionId` in the group commit, behind the fence. */
  #write<T>(sessionId: string, write: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#shared.queue.run(sessionId, async (client) => {
      await this.#checkFence(client, sessionId);
      return write(client);
    });
  }

  /**
   * The fence, once per session, epoch and transaction: its check locks the lease row (FOR
   * SHARE) until the transaction ends, so no claim can change the answer for the later writes
   * of the same transaction under the same epoch, and they skip the query. A write rolled back
   * to its savepoint releases that lock, and the queue's memo forgets the note with it (see
   * pg-commit-queue.ts). A write under another epoch (an actor of an older claim) is checked on
   * its own.
   */
  async #checkFence(client: pg.PoolClient, sessionId: string): Promise<string | null> {
    const fence = this.#shared.fence;
    if (fence === null) return null;
    const epoch = this.#epoch ?? fence.heldEpoch(sessionId);
    const memo = this.#shared.queue.memoOf(client);
    const key = epoch === undefined ? null : fencedKey(sessionId, epoch);
    if (key !== null && memo?.has(key)) return key;
    await fence.check(client, sessionId, epoch);
    if (key !== null) memo?.add(key);
    return key;
  }

  writerFrom(sessionId: string, entries: readonly PositionedEntry[]): StoredSessionWriter {
    // Appends pass the fence before the head compare: a late commit is fenced, not a conflict.
    const log = new FencedPgLog(this.log, this.#shared.queue, async (client, id) => {
      await this.#checkFence(client, id);
    });
    const writer = SessionWriter.fromEntries(log, sessionId, entries);
    return {
      sessionId,
      get headHash() {
        return writer.headHash;
      },
      get position() {
        return writer.position;
      },
      get state() {
        return writer.state;
      },
      placed: (more) => writer.placed(more),
      append: (more, writes, options) =>
        writer.append(more, (client) => runPg(client, rowWritesProgram(sessionId, writes)), options),
    };
  }

  async readLog(sessionId: string): Promise<PositionedEntry[]> {
    const delivered = await runPg(this.pool, lastDeliveredInputProgram(sessionId));
    const entries = await this.log.readAll(sessionId);
    checkDeliveredWithin(sessionId, entries, delivered);
    return entries;
  }

  readLogRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    return this.log.readRange(sessionId, from, limit);
  }

  readLogHead(sessionId: string): Promise<LogHead | null> {
    return this.log.readHead(sessionId);
  }

  readHeadRecord(sessionId: string): Promise<HeadRecord | null> {
    return this.log.readHeadRecord(sessionId);
  }

  signUnsignedHeads(): Promise<string[]> {
    return this.log.signUnsignedHeads();
  }

  writeRows(sessionId: string, writes: RowWrites): Promise<void> {
    return this.#write(sessionId, (client) => runPg(client, rowWritesProgram(sessionId, writes)));
  }

  createSession(row: NewSession, entries: readonly LogEntry[], preview: SessionPreview): Promise<void> {
    return this.#shared.queue.run(row.id, async (client) => {
      await runPg(client, createSessionRowProgram(row));
      await this.log.appendInTransaction(client, row.id, buildChain(null, entries));
      await runPg(client, finishSessionCreationProgram(row.id, preview));
      await this.#shared.fence?.created(client, row.id);
    });
  }

  getSession(sessionId: string): Promise<SessionRow | null> {
    return runPg(this.pool, getSessionProgram(sessionId));
  }

  listSessions(filter?: SessionListFilter): Promise<SessionRow[]> {
    return runPg(this.pool, listSessionsProgram(filter));
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.#shared.queue.run(sessionId, async (client) => {
      const passed = await this.#checkFence(client, sessionId);
      // The schema changes only by migrations at a node's boot: look its tables up once.
      this.#shared.sessionTables ??= await runPg(client, tablesWithSessionColumnProgram());
      await this.log.deleteSessionInTransaction(client, sessionId);
      await runPg(client, deleteSessionProgram(sessionId, this.#shared.sessionTables));
      // Its lease row went with it: a later write of this session in this transaction is refused.
      // (Only the epoch that just passed can be noted: the locked row has one.)
      if (passed !== null) this.#shared.queue.memoOf(client)?.delete(passed);
    });
  }

  async setPreview(sessionId: string, preview: SessionPreview): Promise<void> {
    await this.#write(sessionId, (client) => runPg(client, setPreviewProgram(sessionId, preview)));
  }

  admitInput(input: NewInput): Promise<Admission> {
    return this.#write(input.session, (client) => runPg(client, admitAndTouchProgram(input)));
  }

  getReceipt(sessionId: string, inputId: string): Promise<InputReceipt | null> {
    return runPg(this.pool, getReceiptProgram(sessionId, inputId));
  }

  pendingInputs(sessionId: string): Promise<InputRow[]> {
    return runPg(this.pool, listPendingInputsProgram(sessionId));
  }

  cancelInputsThrough(sessionId: string, order: number): Promise<string[]> {
    return this.#write(sessionId, (client) => runPg(client, cancelInputsThroughProgram(sessionId, order)));
  }

  cancelInput(sessionId: string, inputId: string): Promise<InputCancellation> {
    return this.#write(sessionId, (client) => runPg(client, cancelInputProgram(sessionId, inputId)));
  }

  sessionsWithPendingInputs(): Promise<string[]> {
    return runPg(this.pool, sessionsWithPendingInputsProgram());
  }

  runningTurnOf(sessionId: string): Promise<TurnRow | null> {
    return runPg(this.pool, runningTurnOfProgram(sessionId));
  }

  runningTurns(): Promise<TurnRow[]> {
    return runPg(this.pool, runningTurnsProgram());
  }

  async failTurn(sessionId: string, turnId: string, endedAt: number, error: string): Promise<void> {
    await this.#write(sessionId, (client) =>
      runPg(client, failTurnProgram(sessionId, turnId, endedAt, error)),
    );
  }

  recordRejection(rejection: RejectedCreation): Promise<void> {
    // Not a session's write: the id names a session that was never created, so no lease fences it.
    return this.#shared.queue.run(rejection.id, (client) => runPg(client, recordRejectionProgram(rejection)));
  }

  getRejection(id: string, now: number): Promise<RejectedCreation | null> {
    return runPg(this.pool, getRejectionProgram(id, now));
  }

  commitStats() {
    return this.#shared.queue.stats();
  }

  async close(): Promise<void> {
    await this.#shared.queue.close();
    await this.log.close();
    await this.pool.end();
  }
}

/** The memo key noting that the session passed the fence under `epoch` in the current transaction. */
function fencedKey(sessionId: string, epoch: number): string {
  return `fenced:${sessionId}:${epoch}`;
}
