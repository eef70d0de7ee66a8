/**
 * The storage port on one SQLite file: the log's `transcript` tables (through `SqliteStore`) and
 * the daemon's `sessions`, `inputs`, `turns` and `rejected_creations` tables on one connection,
 * with one group commit for both, so all the writes of one event-loop tick (many sessions'
 * admissions and steps) share one transaction and one fsync, and a session's log and its rows
 * never disagree.
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
import type { DaemonDatabase } from "./database.js";
import {
  type Admission,
  admitInput,
  cancelInput,
  cancelInputsThrough,
  getReceipt,
  type InputRow,
  listPendingInputs,
  markInputsCommitted,
  type NewInput,
  sessionsWithPendingInputs,
} from "./inputs-table.js";
import {
  forgetRejection,
  getRejection,
  type RejectedCreation,
  recordRejection,
} from "./rejected-creations-table.js";
import type { InputCancellation, RowWrites, SessionStorage, StoredSessionWriter } from "./session-storage.js";
import {
  deleteSessionRows,
  getSession,
  insertSession,
  listSessions,
  type NewSession,
  type SessionListFilter,
  type SessionRow,
  setPreview,
  setProvider,
  touchActivity,
  updateUsage,
} from "./sessions-table.js";
import { endTurn, runningTurnOf, runningTurns, startTurn, type TurnRow } from "./turns-table.js";

export class SqliteSessionStorage implements SessionStorage {
  readonly db: DaemonDatabase;
  readonly log: SqliteStore;
  readonly #queue: SqliteCommitQueue;

  /** Storage on an open daemon database (see database.ts); heads are signed by `signer` when given. */
  constructor(db: DaemonDatabase, options: { signer?: HeadSigner } = {}) {
    this.db = db;
    this.#queue = new SqliteCommitQueue(db);
    this.log = new SqliteStore(db, { commitQueue: this.#queue, ...options });
  }

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
      append: (more, writes) => writer.append(more, (db) => applyRowWrites(db, sessionId, writes)),
    };
  }

  async readLog(sessionId: string): Promise<PositionedEntry[]> {
    return this.log.readAllSync(sessionId);
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

  writeRows(sessionId: string, writes: RowWrites): Promise<void> {
    return this.#queue.run(sessionId, () => applyRowWrites(this.db, sessionId, writes));
  }

  async createSession(row: NewSession, entries: readonly LogEntry[], preview: SessionPreview): Promise<void> {
    const { db, log } = this;
    db.transaction(() => {
      insertSession(db, row);
      log.appendInTransaction(row.id, buildChain(null, entries));
      setPreview(db, row.id, preview);
      forgetRejection(db, row.id);
    }).immediate();
  }

  async getSession(sessionId: string): Promise<SessionRow | null> {
    return getSession(this.db, sessionId);
  }

  async listSessions(filter?: SessionListFilter): Promise<SessionRow[]> {
    return listSessions(this.db, filter);
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.#queue.run(sessionId, () => {
      this.log.deleteSessionSync(sessionId);
      deleteSessionRows(this.db, sessionId);
    });
  }

  async setPreview(sessionId: string, preview: SessionPreview): Promise<void> {
    setPreview(this.db, sessionId, preview);
  }

  admitInput(input: NewInput): Promise<Admission> {
    return this.#queue.run(input.session, () => {
      const admitted = admitInput(this.db, input);
      if (admitted.created) touchActivity(this.db, input.session, input.acceptedAt);
      return admitted;
    });
  }

  async getReceipt(sessionId: string, inputId: string): Promise<InputReceipt | null> {
    return getReceipt(this.db, sessionId, inputId);
  }

  async pendingInputs(sessionId: string): Promise<InputRow[]> {
    return listPendingInputs(this.db, sessionId);
  }

  cancelInputsThrough(sessionId: string, order: number): Promise<string[]> {
    return this.#queue.run(sessionId, () => cancelInputsThrough(this.db, sessionId, order));
  }

  cancelInput(sessionId: string, inputId: string): Promise<InputCancellation> {
    return this.#queue.run(sessionId, () => cancelInput(this.db, sessionId, inputId));
  }

  async sessionsWithPendingInputs(): Promise<string[]> {
    return sessionsWithPendingInputs(this.db);
  }

  async runningTurnOf(sessionId: string): Promise<TurnRow | null> {
    return runningTurnOf(this.db, sessionId);
  }

  async runningTurns(): Promise<TurnRow[]> {
    return runningTurns(this.db);
  }

  async failTurn(turnId: string, endedAt: number, error: string): Promise<void> {
    endTurn(this.db, turnId, { state: "failed", endedAt, error });
  }

  async recordRejection(rejection: RejectedCreation): Promise<void> {
    recordRejection(this.db, rejection);
  }

  async getRejection(id: string, now: number): Promise<RejectedCreation | null> {
    return getRejection(this.db, id, now);
  }

  commitStats() {
    return this.#queue.stats();
  }

  async close(): Promise<void> {
    this.#queue.close();
    await this.log.close();
  }
}

/** Apply `writes` on the connection, inside the append's savepoint. */
function applyRowWrites(db: DaemonDatabase, sessionId: string, writes: RowWrites): void {
  if (writes.startTurn !== undefined) {
    startTurn(db, { session: sessionId, ...writes.startTurn });
  }
  if (writes.committedInputs !== undefined) {
    markInputsCommitted(db, writes.committedInputs.turnId, writes.committedInputs.inputs);
  }
  if (writes.endTurn !== undefined) {
    const { id, ...end } = writes.endTurn;
    endTurn(db, id, end);
  }
  if (writes.usage !== undefined && Object.keys(writes.usage).length > 0)
    updateUsage(db, sessionId, writes.usage);
  if (writes.preview !== undefined) setPreview(db, sessionId, writes.preview);
  if (writes.activityAt !== undefined) touchActivity(db, sessionId, writes.activityAt);
  if (writes.provider !== undefined) setProvider(db, sessionId, writes.provider);
}
