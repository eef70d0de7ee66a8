/**
 * The storage port on one SQLite file: the log's `transcript` tables (through `SqliteStore`) and
 * the daemon's `sessions`, `inputs`, `turns` and `rejected_creations` tables on one connection,
 * with one group commit for both, so all the writes of one event-loop tick (many sessions'
 * admissions and steps) share one transaction and one fsync, and a session's log and its rows
 * never disagree. The connection runs at synchronous=NORMAL and the write-ahead log is flushed
 * off the main thread (log/wal-sync.ts): a write resolves once it is on disk, and the event loop
 * keeps streaming while the disk works. Checkpoints run on a worker thread (wal-checkpointer.ts).
 *
 * Boundary rule: the only file that composes the table functions into transactions; everything
 * above it speaks through `SessionStorage`.
 */

import type { InputReceipt } from "../../api/inputs.js";
import type { SessionPreview } from "../../api/session-snapshot.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import { buildChain } from "../../log/entry-hash.js";
import type { HeadSigner } from "../../log/head-signer.js";
import { SessionWriter } from "../../log/session-writer.js";
import { SqliteCommitQueue } from "../../log/sqlite-commit-queue.js";
import { SqliteStore } from "../../log/sqlite-store.js";
import { WalCheckpointer } from "../../log/wal-checkpointer.js";
import { type SlowDisk, WalSync } from "../../log/wal-sync.js";
import { type DaemonDatabase, statementsRun } from "./database.js";
import { checkDeliveredWithin, lastDeliveredInputProgram } from "./delivery-evidence.js";
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
import type { InputCancellation, RowWrites, SessionStorage, StoredSessionWriter } from "./session-storage.js";
import {
  getSessionProgram,
  listSessionsProgram,
  type NewSession,
  type SessionListFilter,
  type SessionRow,
  setPreviewProgram,
} from "./sessions-table.js";
import { runSqlite, runSqliteAtomic } from "./sqlite-runner.js";
import { failTurnProgram, runningTurnOfProgram, runningTurnsProgram, type TurnRow } from "./turns-table.js";

export class SqliteSessionStorage implements SessionStorage {
  readonly db: DaemonDatabase;
  readonly log: SqliteStore;
  readonly #queue: SqliteCommitQueue;
  readonly #ownsDb: boolean;
  /** Flushes the write-ahead log (null for an in-memory database, which has none). */
  readonly #sync: WalSync | null;
  readonly #checkpointer: WalCheckpointer | null;

  /**
   * Storage on an open daemon database (see database.ts); heads are signed by `signer` when
   * given; `ownsDb`: close() closes the database too; `slowDisk`: a test-only delay per flush;
   * `onCheckpointError` hears of a failed checkpoint (the next one retries).
   */
  constructor(
    db: DaemonDatabase,
    options: {
      signer?: HeadSigner;
      ownsDb?: boolean;
      slowDisk?: SlowDisk | null;
      onCheckpointError?: (message: string) => void;
    } = {},
  ) {
    this.db = db;
    this.#ownsDb = options.ownsDb ?? false;
    if (db.memory) {
      this.#sync = null;
      this.#checkpointer = null;
      this.#queue = new SqliteCommitQueue(db);
    } else {
      // Commits only write the log; WalSync makes them durable before anyone is told, and the
      // checkpointer copies the log back off the main thread.
      db.pragma("synchronous = NORMAL");
      db.pragma("wal_autocheckpoint = 0");
      const sync = new WalSync(db.name, { slowDisk: options.slowDisk ?? null });
      const checkpointer = new WalCheckpointer(db.name, {
        onError: options.onCheckpointError,
        // Without the worker, SQLite checkpoints inside commits again (SQLite's default size).
        onDead: () => {
          if (db.open) db.pragma("wal_autocheckpoint = 1000");
        },
      });
      this.#sync = sync;
      this.#checkpointer = checkpointer;
      this.#queue = new SqliteCommitQueue(db, {
        durable: async () => {
          await sync.durable();
          checkpointer.written();
        },
      });
    }
    this.log = new SqliteStore(db, { commitQueue: this.#queue, signer: options.signer });
  }

  /** One node, no leases: every actor writes through the same storage. */
  forLease(_epoch: number): SessionStorage {
    return this;
  }

  /** One node: nobody else can own the session. */
  async confirmLease(_sessionId: string): Promise<void> {}

  writerFrom(sessionId: string, entries: readonly PositionedEntry[]): StoredSessionWriter {
    const writer = SessionWriter.fromEntries(this.log, sessionId, entries);
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
        writer.append(more, (db) => applyRowWrites(db, sessionId, writes), options),
    };
  }

  async readLog(sessionId: string): Promise<PositionedEntry[]> {
    const delivered = runSqlite(this.db, lastDeliveredInputProgram(sessionId));
    const entries = this.log.readAllSync(sessionId);
    checkDeliveredWithin(sessionId, entries, delivered);
    return entries;
  }

  async readLogRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    return this.log.readRangeSync(sessionId, from, limit);
  }

  async readLogHead(sessionId: string) {
    return this.log.readHeadSync(sessionId);
  }

  async readHeadRecord(sessionId: string) {
    return this.log.readHeadRecordSync(sessionId);
  }

  async signUnsignedHeads(): Promise<string[]> {
    return this.log.signUnsignedHeadsSync();
  }

  writeRows(sessionId: string, writes: RowWrites): Promise<void> {
    return this.#queue.run(sessionId, () => applyRowWrites(this.db, sessionId, writes));
  }

  createSession(row: NewSession, entries: readonly LogEntry[], preview: SessionPreview): Promise<void> {
    const { db, log } = this;
    // The queue runs each write in its own savepoint: the row, the entries and the preview commit together.
    return this.#queue.run(row.id, () => {
      runSqlite(db, createSessionRowProgram(row));
      log.appendInTransaction(row.id, buildChain(null, entries));
      runSqlite(db, finishSessionCreationProgram(row.id, preview));
    });
  }

  async getSession(sessionId: string): Promise<SessionRow | null> {
    return runSqlite(this.db, getSessionProgram(sessionId));
  }

  async listSessions(filter?: SessionListFilter): Promise<SessionRow[]> {
    return runSqlite(this.db, listSessionsProgram(filter));
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.#queue.run(sessionId, () => {
      this.log.deleteSessionSync(sessionId);
      runSqlite(this.db, deleteSessionProgram(sessionId));
    });
  }

  setPreview(sessionId: string, preview: SessionPreview): Promise<void> {
    return this.#queue.run(sessionId, () => {
      runSqlite(this.db, setPreviewProgram(sessionId, preview));
    });
  }

  admitInput(input: NewInput): Promise<Admission> {
    return this.#queue.run(input.session, () => runSqlite(this.db, admitAndTouchProgram(input)));
  }

  async getReceipt(sessionId: string, inputId: string): Promise<InputReceipt | null> {
    return runSqlite(this.db, getReceiptProgram(sessionId, inputId));
  }

  async pendingInputs(sessionId: string): Promise<InputRow[]> {
    return runSqlite(this.db, listPendingInputsProgram(sessionId));
  }

  cancelInputsThrough(sessionId: string, order: number): Promise<string[]> {
    return this.#queue.run(sessionId, () =>
      runSqliteAtomic(this.db, cancelInputsThroughProgram(sessionId, order)),
    );
  }

  cancelInput(sessionId: string, inputId: string): Promise<InputCancellation> {
    return this.#queue.run(sessionId, () => runSqliteAtomic(this.db, cancelInputProgram(sessionId, inputId)));
  }

  async sessionsWithPendingInputs(): Promise<string[]> {
    return runSqlite(this.db, sessionsWithPendingInputsProgram());
  }

  async runningTurnOf(sessionId: string): Promise<TurnRow | null> {
    return runSqlite(this.db, runningTurnOfProgram(sessionId));
  }

  async runningTurns(): Promise<TurnRow[]> {
    return runSqlite(this.db, runningTurnsProgram());
  }

  failTurn(sessionId: string, turnId: string, endedAt: number, error: string): Promise<void> {
    return this.#queue.run(sessionId, () => {
      runSqlite(this.db, failTurnProgram(sessionId, turnId, endedAt, error));
    });
  }

  recordRejection(rejection: RejectedCreation): Promise<void> {
    return this.#queue.run(rejection.id, () => runSqlite(this.db, recordRejectionProgram(rejection)));
  }

  async getRejection(id: string, now: number): Promise<RejectedCreation | null> {
    return runSqlite(this.db, getRejectionProgram(id, now));
  }

  commitStats() {
    const statements = statementsRun(this.db);
    return {
      ...this.#queue.stats(),
      fsyncs: this.#sync?.flushes ?? 0,
      ...(statements === null ? {} : { statements }),
    };
  }

  async close(): Promise<void> {
    this.#queue.close();
    // What the queue committed last is flushed before the connection goes.
    await this.#sync?.durable().catch(() => undefined);
    await this.#sync?.close();
    await this.#checkpointer?.close();
    await this.log.close();
    if (this.#ownsDb && this.db.open) this.db.close();
  }
}

/** Apply `writes` on the connection, inside the append's savepoint. */
function applyRowWrites(db: DaemonDatabase, sessionId: string, writes: RowWrites): void {
  runSqlite(db, rowWritesProgram(sessionId, writes));
}
