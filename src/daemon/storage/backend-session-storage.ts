/**
 * The storage port (`SessionStorage`) over a database backend (storage-backend.ts): the log's
 * tables through the backend's log store, the daemon's through the SQL programs, written in one
 * group commit, so a session's log and its rows never disagree. Both backends are this class;
 * SqliteSessionStorage and PgSessionStorage only build their backend.
 *
 * Boundary rule: the only code that composes the table programs and the log store into
 * transactions; everything above it speaks through `SessionStorage`. Every append of a session,
 * its first included, goes through the log's session-writer.ts. Every write of a session passes
 * the fence first, when there is one (cluster mode), in the write's own transaction.
 */
import type { InputReceipt } from "../../api/inputs.js";
import type { SessionPreview } from "../../api/session-snapshot.js";
import { type Awaitable, andThen } from "../../log/awaitable.js";
import { collectState } from "../../log/collect-state.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import { hashEntry } from "../../log/entry-hash.js";
import type { HeadRecord } from "../../log/head-record.js";
import type { StateCheckpoint } from "../../log/state-checkpoint.js";
import type { LogHead, Store } from "../../log/store.js";
import { type PrefixOptions, type RestoredLog, restoreLog, verifyPrefix } from "../../log/tail-restore.js";
import { SessionBusyError } from "../errors.js";
import { type ApiTokenStore, apiTokenStoreOn } from "./api-token-store.js";
import { backendOutbox } from "./backend-outbox.js";
import { type UsageScope, type UsageTotals, usageTotalsProgram } from "./budget-usage-table.js";
import { checkpointedWriter } from "./checkpointed-writer.js";
import { createSessionOn } from "./create-session.js";
import { appliedSchemaVersionProgram } from "./daemon-schema.js";
import { checkDeliveredWithin, lastDeliveredInputProgram } from "./delivery-evidence.js";
import { type DescendantUsage, descendantUsageProgram } from "./descendant-usage.js";
import { GuardedLog } from "./guarded-log.js";
import {
  type Admission,
  cancelInputProgram,
  cancelInputsThroughProgram,
  getReceiptProgram,
  getReceiptsProgram,
  type InputRef,
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
import { notQuietProgram, type RetentionCandidate, retentionCandidatesProgram } from "./retention-table.js";
import { admitAndTouchProgram, deleteSessionProgram, rowWritesProgram } from "./row-writes.js";
import {
  advanceScheduleProgram,
  deleteScheduleProgram,
  dueSchedulesProgram,
  earliestFiringProgram,
  type FiringRecord,
  getScheduleProgram,
  insertScheduleProgram,
  listSchedulesProgram,
  type SchedulePage,
  type ScheduleRow,
  setSchedulePausedProgram,
} from "./schedules-table.js";
import type {
  CreatedSession,
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
  type SessionPage,
  type SessionRow,
  setPreviewProgram,
  tablesWithSessionColumnProgram,
} from "./sessions-table.js";
import type { SqlProgram } from "./sql-program.js";
import type { StorageBackend } from "./storage-backend.js";
import { failTurnProgram, runningTurnOfProgram, runningTurnsProgram, type TurnRow } from "./turns-table.js";

/** What every view of one storage shares: the backend, its fence and its caches. */
interface SharedState<Tx> {
  backend: StorageBackend<Tx>;
  fence: WriteFence<Tx> | null;
  /** The daemon tables with a `session` column, found at the first deletion. */
  sessionTables: string[] | null;
}

export class BackendSessionStorage<Tx> implements SessionStorage {
  #shared: SharedState<Tx>;
  readonly apiTokens: ApiTokenStore;
  readonly outbox: ReturnType<typeof backendOutbox>;
  /** The lease epoch this view's writes are fenced at (undefined: the node's, for writes outside an actor). */
  #epoch: number | undefined = undefined;
  /** Storage on `backend`, unfenced until `fenceWith`. */
  constructor(backend: StorageBackend<Tx>) {
    this.#shared = { backend, fence: null, sessionTables: null };
    this.apiTokens = apiTokenStoreOn(backend);
    this.outbox = backendOutbox(backend);
  }

  /** From now on every write of a session first passes `fence` in its transaction (cluster mode). */
  fenceWith(fence: WriteFence<Tx>): void {
    this.#shared.fence = fence;
  }

  forLease(epoch: number): SessionStorage {
    if (this.#shared.fence === null) return this;
    const view = new BackendSessionStorage(this.#shared.backend);
    // The same backend, group commit and fence: only the epoch its writes carry differs.
    view.#shared = this.#shared;
    view.#epoch = epoch;
    return view;
  }

  async confirmLease(sessionId: string): Promise<void> {
    const fence = this.#shared.fence;
    if (fence === null) return;
    await this.#shared.backend.outsideTransaction(async (tx) => {
      await fence.check(tx, sessionId, this.#epoch ?? fence.heldEpoch(sessionId));
    });
  }

  writerFrom(sessionId: string, entries: readonly PositionedEntry[]): StoredSessionWriter {
    return this.writerFromRestore(sessionId, { state: collectState(entries), entries, checkpoint: null });
  }

  writerFromRestore(sessionId: string, restored: RestoredLog): StoredSessionWriter {
    const { backend, fence } = this.#shared;
    // Appends pass the fence before the head compare: a late commit is fenced, not a conflict.
    const log: Store<Tx> =
      fence === null ? backend.log : new GuardedLog(backend.log, (tx, id) => this.#checkFence(tx, id));
    return checkpointedWriter(backend, log, sessionId, restored);
  }

  async restoreLog(sessionId: string): Promise<RestoredLog> {
    const { backend } = this.#shared;
    // The rows first: the log only grows, so what they name must be in the log read after them.
    const delivered = await backend.read(lastDeliveredInputProgram(sessionId));
    const restored = await restoreLog(backend.log, backend.checkpoints, sessionId);
    checkDeliveredWithin(sessionId, restored.entries, delivered);
    return restored;
  }

  verifyLogPrefix(sessionId: string, checkpoint: StateCheckpoint, options?: PrefixOptions): Promise<boolean> {
    return verifyPrefix(this.#shared.backend.log, sessionId, checkpoint, options);
  }

  async readLog(sessionId: string): Promise<PositionedEntry[]> {
    const { backend } = this.#shared;
    // The rows first: the log only grows, so what they name must be in the log read after them.
    const delivered = await backend.read(lastDeliveredInputProgram(sessionId));
    const entries = await backend.log.readAll(sessionId);
    checkDeliveredWithin(sessionId, entries, delivered);
    return entries;
  }

  readLogRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    return this.#shared.backend.log.readRange(sessionId, from, limit);
  }

  readLogHead(sessionId: string): Promise<LogHead | null> {
    return this.#shared.backend.log.readHead(sessionId);
  }

  readHeadRecord(sessionId: string): Promise<HeadRecord | null> {
    return this.#shared.backend.log.readHeadRecord(sessionId);
  }

  signUnsignedHeads(): Promise<string[]> {
    return this.#shared.backend.log.signUnsignedHeads();
  }

  writeRows(sessionId: string, writes: RowWrites): Promise<void> {
    return this.#write(sessionId, () => rowWritesProgram(sessionId, writes));
  }

  createSession(
    row: NewSession,
    entries: readonly LogEntry[],
    preview: SessionPreview,
    writes?: RowWrites,
  ): Promise<CreatedSession> {
    return createSessionOn(this.#shared.backend, this.#shared.fence, row, entries, preview, writes);
  }

  getSession(sessionId: string): Promise<SessionRow | null> {
    return this.#shared.backend.read(getSessionProgram(sessionId));
  }

  listSessions(filter?: SessionListFilter, page?: SessionPage): Promise<SessionRow[]> {
    return this.#shared.backend.read(listSessionsProgram(filter, page));
  }

  descendantUsage(sessionId: string): Promise<DescendantUsage[]> {
    return this.#shared.backend.read(descendantUsageProgram(sessionId));
  }

  deleteSession(sessionId: string): Promise<void> {
    const shared = this.#shared;
    const { backend } = shared;
    const queue = backend.log.commitQueue;
    return queue.run(sessionId, (tx) =>
      andThen(this.#checkFence(tx, sessionId), (passed) =>
        // The schema changes only by migrations at a node's boot: its tables are looked up once.
        andThen(shared.sessionTables ?? backend.run(tx, tablesWithSessionColumnProgram()), (tables) => {
          shared.sessionTables = tables;
          return andThen(backend.log.deleteInTransaction(tx, sessionId), () =>
            andThen(backend.run(tx, deleteSessionProgram(sessionId, tables)), () => {
              // Its lease row went with it: a later write of this session in this transaction is
              // refused. (Only the epoch that just passed can be noted: the locked row has one.)
              if (passed !== null) queue.memoOf(tx)?.delete(passed);
            }),
          );
        }),
      ),
    );
  }

  async setPreview(sessionId: string, preview: SessionPreview): Promise<void> {
    await this.#write(sessionId, () => setPreviewProgram(sessionId, preview));
  }

  admitInput(input: NewInput): Promise<Admission> {
    return this.#write(input.session, () => admitAndTouchProgram(input));
  }

  getReceipt(sessionId: string, inputId: string): Promise<InputReceipt | null> {
    return this.#shared.backend.read(getReceiptProgram(sessionId, inputId));
  }

  getReceipts(refs: readonly InputRef[]): Promise<Array<InputReceipt | null>> {
    return this.#shared.backend.read(getReceiptsProgram(refs));
  }

  pendingInputs(sessionId: string): Promise<InputRow[]> {
    return this.#shared.backend.read(listPendingInputsProgram(sessionId));
  }

  cancelInputsThrough(sessionId: string, order: number): Promise<string[]> {
    return this.#write(sessionId, () => cancelInputsThroughProgram(sessionId, order));
  }

  cancelInput(sessionId: string, inputId: string): Promise<InputCancellation> {
    return this.#write(sessionId, () => cancelInputProgram(sessionId, inputId));
  }

  sessionsWithPendingInputs(): Promise<string[]> {
    return this.#shared.backend.read(sessionsWithPendingInputsProgram());
  }

  runningTurnOf(sessionId: string): Promise<TurnRow | null> {
    return this.#shared.backend.read(runningTurnOfProgram(sessionId));
  }

  runningTurns(): Promise<TurnRow[]> {
    return this.#shared.backend.read(runningTurnsProgram());
  }

  async failTurn(sessionId: string, turnId: string, endedAt: number, error: string): Promise<void> {
    await this.#write(sessionId, () => failTurnProgram(sessionId, turnId, endedAt, error));
  }

  usageTotals(scope: UsageScope, fromDay: number | null): Promise<UsageTotals> {
    return this.#shared.backend.read(usageTotalsProgram(scope, fromDay));
  }

  retentionCandidates(idleBefore: number | null, aboveBytes: number | null): Promise<RetentionCandidate[]> {
    return this.#shared.backend.read(retentionCandidatesProgram(idleBefore, aboveBytes));
  }

  pruneLog(
    sessionId: string,
    headHash: string,
    record: Extract<LogEntry, { kind: "pruned" }>,
  ): Promise<LogHead> {
    const { backend } = this.#shared;
    const hashed = hashEntry(headHash, record);
    return backend.log.commitQueue.run(sessionId, (tx) =>
      andThen(this.#checkFence(tx, sessionId), () =>
        andThen(backend.run(tx, notQuietProgram(sessionId)), (busy) => {
          if (busy !== null) throw new SessionBusyError(sessionId);
          return andThen(backend.log.appendInWrite(tx, sessionId, [hashed]), (head) =>
            andThen(backend.log.pruneInTransaction(tx, sessionId, record.up_to), () =>
              // A checkpoint may name entries the cut removed: the next load reads the kept log whole.
              andThen(backend.checkpoints.remove(tx, sessionId), () => head),
            ),
          );
        }),
      ),
    );
  }

  async recordRejection(rejection: RejectedCreation): Promise<void> {
    const { backend } = this.#shared;
    // Not a session's write: the id names a session that was never created, so no lease fences it.
    await backend.log.commitQueue.run(rejection.id, (tx) =>
      backend.run(tx, recordRejectionProgram(rejection)),
    );
  }

  getRejection(id: string, now: number): Promise<RejectedCreation | null> {
    return this.#shared.backend.read(getRejectionProgram(id, now));
  }

  createSchedule(row: ScheduleRow): Promise<boolean> {
    return this.#scheduleWrite(row.id, () => insertScheduleProgram(row));
  }

  getSchedule(id: string): Promise<ScheduleRow | null> {
    return this.#shared.backend.read(getScheduleProgram(id));
  }

  listSchedules(page: SchedulePage): Promise<ScheduleRow[]> {
    return this.#shared.backend.read(listSchedulesProgram(page));
  }

  dueSchedules(now: number, limit: number): Promise<ScheduleRow[]> {
    return this.#shared.backend.read(dueSchedulesProgram(now, limit));
  }

  earliestFiring(): Promise<number | null> {
    return this.#shared.backend.read(earliestFiringProgram());
  }

  setSchedulePaused(id: string, paused: boolean): Promise<boolean> {
    return this.#scheduleWrite(id, () => setSchedulePausedProgram(id, paused));
  }

  deleteSchedule(id: string): Promise<boolean> {
    return this.#scheduleWrite(id, () => deleteScheduleProgram(id));
  }

  advanceSchedule(
    id: string,
    expected: number,
    next: number | null,
    firing: FiringRecord | null,
  ): Promise<boolean> {
    return this.#scheduleWrite(id, () => advanceScheduleProgram(id, expected, next, firing));
  }

  /** A schedule's write in the group commit: not a session's, so no lease fences it. */
  #scheduleWrite<T>(id: string, program: () => SqlProgram<T>): Promise<T> {
    const { backend } = this.#shared;
    return backend.log.commitQueue.run(`schedule:${id}`, (tx) => backend.run(tx, program()));
  }

  commitStats() {
    const { backend } = this.#shared;
    return { ...backend.log.groupCommitStats(), ...backend.stats() };
  }

  appliedSchemaVersion(): Promise<number> {
    return this.#shared.backend.read(appliedSchemaVersionProgram());
  }

  /** Commit what is queued, then release the backend. */
  async close(): Promise<void> {
    const { backend } = this.#shared;
    await backend.log.commitQueue.close();
    await backend.close();
  }

  /** Run the program `program()` builds for `sessionId` in the group commit, behind the fence. */
  #write<T>(sessionId: string, program: () => SqlProgram<T>): Promise<T> {
    const { backend } = this.#shared;
    return backend.log.commitQueue.run(sessionId, (tx) =>
      andThen(this.#checkFence(tx, sessionId), () => backend.run(tx, program())),
    );
  }

  /**
   * The fence, once per session, epoch and transaction: its check locks the lease row (FOR
   * SHARE) until the transaction ends, so no claim can change the answer for the later writes
   * of the same transaction under the same epoch, and they skip the query. A write rolled back
   * to its savepoint releases that lock, and the queue's memo forgets the note with it (see
   * log/commit-queue.ts). A write under another epoch (an actor of an older claim) is checked on
   * its own. Returns the memo key noted (`fenced:<session>:<epoch>`), or null (no fence, or no
   * epoch to note).
   */
  #checkFence(tx: Tx, sessionId: string): Awaitable<string | null> {
    const fence = this.#shared.fence;
    if (fence === null) return null;
    const epoch = this.#epoch ?? fence.heldEpoch(sessionId);
    const memo = this.#shared.backend.log.commitQueue.memoOf(tx);
    const key = epoch === undefined ? null : `fenced:${sessionId}:${epoch}`;
    if (key !== null && memo?.has(key)) return key;
    return andThen(fence.check(tx, sessionId, epoch), () => {
      if (key !== null) memo?.add(key);
      return key;
    });
  }
}
