/**
 * The daemon's storage port: everything the sessions layer keeps durably (the session logs,
 * the sessions, their inputs and turns), behind one asynchronous interface, implemented once
 * (backend-session-storage.ts) over a SQLite or a PostgreSQL backend.
 *
 * Boundary rule: the port speaks in plain data. Writes that must commit atomically with a log
 * append are described as `RowWrites`, which the backend applies in the append's transaction,
 * so the sessions layer never sees a connection, a transaction or SQL.
 */

import type { EndedTurnState, InputReceipt } from "../../api/inputs.js";
import type { SessionPreview } from "../../api/session-snapshot.js";
import type { Awaitable } from "../../log/awaitable.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import type { HeadRecord } from "../../log/head-record.js";
import type { RestoredState } from "../../log/restored-state.js";
import type { PlacedEntry, WriterAppendOptions } from "../../log/session-writer.js";
import type { StateCheckpoint } from "../../log/state-checkpoint.js";
import type { LogHead } from "../../log/store.js";
import type { PrefixOptions, RestoredLog } from "../../log/tail-restore.js";
import type { Budget } from "../../model/budget.js";
import type { Usage } from "../../model/usage.js";
import type { ApiTokenStore } from "./api-token-store.js";
import type { UsageScope, UsageTotals } from "./budget-usage-table.js";
import type { DescendantUsage } from "./descendant-usage.js";
import type { Admission, InputRef, InputRow, NewInput } from "./inputs-table.js";
import type { ClaimedNotification, NewNotification, NotificationSettlement } from "./outbox-table.js";
import type { RejectedCreation } from "./rejected-creations-table.js";
import type { RetentionCandidate } from "./retention-table.js";
import type { FiringRecord, SchedulePage, ScheduleRow } from "./schedules-table.js";
import type { NewSession, SessionListFilter, SessionPage, SessionRow } from "./sessions-table.js";
import type { TurnRow } from "./turns-table.js";

/** Row writes that commit in the same transaction as a log append (each part optional). */
export interface RowWrites {
  /**
   * A new input, admitted first (a turn starting in the same append may deliver it): it must
   * be new and get acceptance order `order`, or the whole write, log append included, rolls
   * back with `InputNotFreshError`. The activity time moves to its acceptance, as on its own.
   */
  admission?: { input: NewInput; order: number };
  /** A turn starts (its row is `running`). */
  startTurn?: { id: string; inputIds: readonly string[]; startedAt: number };
  /** Inputs delivered by a turn, each with the log position of the entry that delivered it. */
  committedInputs?: {
    turnId: string;
    inputs: ReadonlyArray<{ id: string; transcriptPosition: number | null }>;
  };
  /**
   * A user's interrupt of the running turn `id` was asked at `at` (ms): the mark the next start
   * reads if a crash cuts the turn short (nothing for a turn that has ended).
   */
  interruptRequested?: { id: string; at: number };
  /** A turn ends. */
  endTurn?: { id: string; state: EndedTurnState; endedAt: number; error: string | null };
  /** Token usage to add to the session's totals. */
  usage?: Usage;
  /** The session's new preview. */
  preview?: SessionPreview;
  /** The session's activity time moves forward to this (ms). */
  activityAt?: number;
  /** The session's provider profile and model change (null: back to the defaults). */
  provider?: { providerProfile: string | null; model: string | null };
  /** The session's own budget (null: none): a `budget_changed` entry's, or the log's at a load that repairs the row. */
  ownBudget?: Budget | null;
  /** Webhook deliveries this commit's entries owe (the notification outbox). */
  notifications?: readonly NewNotification[];
}

/**
 * The notification outbox as a delivering node uses it (see outbox-table.ts): claim due rows
 * for a while, then settle each. Not a session's write: no lease fences it.
 */
export interface NotificationOutbox {
  /** Claim up to `limit` rows due at `now` that nobody holds, for `owner`, until `until`. */
  claim(owner: string, now: number, until: number, limit: number): Promise<ClaimedNotification[]>;
  /** When the next row becomes claimable (due, any claim on it lapsed), or null when none is owed (a read). */
  nextDue(): Promise<number | null>;
  /** Settle `owner`'s claim of one row (no effect when the claim is no longer `owner`'s). */
  settle(row: ClaimedNotification, owner: string, settlement: NotificationSettlement): Promise<void>;
}

/**
 * A session's log writer as the storage hands it out: the log's `SessionWriter` (head,
 * position, replay) whose appends carry the daemon's row writes in their transaction.
 */
export interface StoredSessionWriter {
  readonly sessionId: string;
  readonly headHash: string | null;
  readonly position: number;
  readonly state: Readonly<RestoredState>;
  /** Where `entries` would be stored if appended now. */
  placed(entries: readonly LogEntry[]): PlacedEntry[];
  /**
   * Append `entries` with `writes` in one transaction, then advance and replay; resolves once
   * durable (`options.onWritten`: as soon as committed, see `SessionWriter.append`).
   */
  append(
    entries: readonly LogEntry[],
    writes: RowWrites,
    options?: WriterAppendOptions,
  ): Promise<PlacedEntry[]>;
}

/**
 * A check every write of a session runs first, in the write's own transaction, before anything
 * of it is written (cluster fencing: the session's lease must still be this node's, under the
 * epoch the writing actor was loaded with). It throws `WriteFencedError` to refuse the write;
 * `created` records the creator's lease in the creation's transaction.
 */
export interface WriteFence<Tx> {
  /** Refuse the write unless the session's lease is this node's under `epoch` (the writer's). */
  check(tx: Tx, sessionId: string, epoch: number | undefined): Awaitable<void>;
  /** Record a new session's lease as this node's, in its creating transaction; the epoch it is taken under. */
  created(tx: Tx, sessionId: string): Awaitable<number>;
  /** The epoch this node holds the session under now (writes outside an actor are fenced at it). */
  heldEpoch(sessionId: string): number | undefined;
}

/** A write was refused because this node no longer owns the session (its lease was taken). */
export class WriteFencedError extends Error {
  constructor(
    readonly sessionId: string,
    readonly detail: string,
  ) {
    super(`session ${sessionId}: this node no longer owns the session, nothing was committed (${detail})`);
    this.name = "WriteFencedError";
  }
}

/** What cancelling one input did. */
export type InputCancellation = "cancelled" | "not_pending";

/** A session as its creation wrote it: the row as stored, and the log as appended (hashed, positioned, replayed). */
export interface CreatedSession {
  row: SessionRow;
  restored: RestoredLog;
  /** The lease epoch the creating transaction took (its actor writes under it); null without a fence. */
  epoch: number | null;
}

export interface SessionStorage {
  /**
   * This storage as an actor loaded under lease epoch `epoch` writes through it: every write of
   * a session is refused (`WriteFencedError`) unless the lease still has that epoch, so an actor
   * left over from an older claim never commits under a newer one, even the same node's. A
   * storage without a fence (one node) returns itself.
   */
  forLease(epoch: number): SessionStorage;
  /**
   * Throw `WriteFencedError` when this view's lease epoch is no longer the session's (another
   * node, or a newer claim of this one, owns it now): how a log found moved on is told apart
   * from a log changed behind the daemon. A storage without a fence never throws.
   */
  confirmLease(sessionId: string): Promise<void>;

  // --- the session logs -------------------------------------------------------------------

  /** The writer of a session whose whole log was just read (and so verified) as `entries`. */
  writerFrom(sessionId: string, entries: readonly PositionedEntry[]): StoredSessionWriter;
  /**
   * The writer of a session just restored (`restoreLog`). Its appends keep the session's state
   * checkpoint: at each compaction and every few thousand entries they write a new one.
   */
  writerFromRestore(sessionId: string, restored: RestoredLog): StoredSessionWriter;
  /** The session's whole verified log. */
  readLog(sessionId: string): Promise<PositionedEntry[]>;
  /**
   * The session's state as restored to load it: from its latest signed state checkpoint and the
   * verified entries after it, or from its whole verified log when it has none (see
   * log/tail-restore.ts). Throws what `readLog` throws, and `LogCorruptError` for a bad checkpoint.
   */
  restoreLog(sessionId: string): Promise<RestoredLog>;
  /**
   * Verify the log up to `checkpoint` page by page (the part `restoreLog` did not read): true
   * once verified, false when `options.stopped` stopped it; throws `LogCorruptError`.
   */
  verifyLogPrefix(sessionId: string, checkpoint: StateCheckpoint, options?: PrefixOptions): Promise<boolean>;
  /** Entries `from <= position < from + limit`, verified within the range. */
  readLogRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]>;
  /** The log's last entry, checked against its recorded head (cheap). */
  readLogHead(sessionId: string): Promise<LogHead | null>;
  /** The recorded head as stored, with its signature. */
  readHeadRecord(sessionId: string): Promise<HeadRecord | null>;
  /**
   * Sign every unsigned recorded head whose log verifies (heads written before signing was
   * required); the sessions signed. Run once per home (daemon/process/head-trust.ts).
   */
  signUnsignedHeads(): Promise<string[]>;
  /** `writes` on their own, for a step that adds no log entry (group committed). */
  writeRows(sessionId: string, writes: RowWrites): Promise<void>;

  // --- sessions ---------------------------------------------------------------------------

  /**
   * Create a session: its row, its first entries and its preview, in one transaction, with
   * `writes` after them in it (its first input admitted, its first turn started). Resolves once
   * durable with what that transaction wrote (nothing read back).
   */
  createSession(
    row: NewSession,
    entries: readonly LogEntry[],
    preview: SessionPreview,
    writes?: RowWrites,
  ): Promise<CreatedSession>;
  getSession(sessionId: string): Promise<SessionRow | null>;
  /** The rows `filter` selects, newest activity first; with `page`, that page only. */
  listSessions(filter?: SessionListFilter, page?: SessionPage): Promise<SessionRow[]>;
  /** The usage of the session's `task` children, recursively, summed per profile and model. */
  descendantUsage(sessionId: string): Promise<DescendantUsage[]>;
  /** Remove the session: its log (through the log store) and every row about it. */
  deleteSession(sessionId: string): Promise<void>;
  /** Store a repaired preview (no log entry). */
  setPreview(sessionId: string, preview: SessionPreview): Promise<void>;

  // --- inputs -----------------------------------------------------------------------------

  /** Admit an input durably (idempotent; see input-admission.ts) and move the activity time. */
  admitInput(input: NewInput): Promise<Admission>;
  getReceipt(sessionId: string, inputId: string): Promise<InputReceipt | null>;
  /** The receipts of `refs` in one read, in their order (null for an input the session lacks). */
  getReceipts(refs: readonly InputRef[]): Promise<Array<InputReceipt | null>>;
  pendingInputs(sessionId: string): Promise<InputRow[]>;
  /** Cancel waiting inputs with acceptance order <= `order`; their ids in order. */
  cancelInputsThrough(sessionId: string, order: number): Promise<string[]>;
  cancelInput(sessionId: string, inputId: string): Promise<InputCancellation>;
  /** Sessions with inputs still waiting (boot recovery). */
  sessionsWithPendingInputs(): Promise<string[]>;

  // --- turns ------------------------------------------------------------------------------

  runningTurnOf(sessionId: string): Promise<TurnRow | null>;
  /** Every turn still `running` (boot recovery). */
  runningTurns(): Promise<TurnRow[]>;
  /**
   * End one of the session's turns without a log entry (a crashed actor's last word; best
   * effort); `TurnStateError` when the session has no such running turn.
   */
  failTurn(sessionId: string, turnId: string, endedAt: number, error: string): Promise<void>;

  // --- budgets ----------------------------------------------------------------------------

  /** What `scope` used from UTC day `fromDay` on (null: ever), summed from `budget_usage`. */
  usageTotals(scope: UsageScope, fromDay: number | null): Promise<UsageTotals>;

  // --- retention --------------------------------------------------------------------------

  /** Sessions retention may act on: nothing waits, no turn runs (see retention-table.ts). */
  retentionCandidates(idleBefore: number | null, aboveBytes: number | null): Promise<RetentionCandidate[]>;
  /**
   * Cut the session's log in one transaction behind the fence: append `record` (a `pruned`
   * entry) after `headHash` (compare-and-append: `AppendConflictError` when the head moved) and
   * remove the entries before its `up_to`. Refused with `SessionBusyError` when an input waits
   * or a turn runs. Resolves with the new head.
   */
  pruneLog(
    sessionId: string,
    headHash: string,
    record: Extract<LogEntry, { kind: "pruned" }>,
  ): Promise<LogHead>;

  // --- refused creations ------------------------------------------------------------------

  recordRejection(rejection: RejectedCreation): Promise<void>;
  getRejection(id: string, now: number): Promise<RejectedCreation | null>;

  // --- named API tokens -------------------------------------------------------------------

  /** The named API tokens (not session data: shared by every node of a cluster). */
  readonly apiTokens: ApiTokenStore;

  // --- schedules --------------------------------------------------------------------------

  /** Store a new schedule; false (nothing written) when its id is taken. */
  createSchedule(row: ScheduleRow): Promise<boolean>;
  getSchedule(id: string): Promise<ScheduleRow | null>;
  /** A page of the schedules, oldest first (creation time, then id). */
  listSchedules(page: SchedulePage): Promise<ScheduleRow[]>;
  /** Schedules not paused whose next firing is at or before `now`, the most overdue first. */
  dueSchedules(now: number, limit: number): Promise<ScheduleRow[]>;
  /** The earliest next firing of a schedule not paused, or null. */
  earliestFiring(): Promise<number | null>;
  /** Pause or resume; false when there is no such schedule. */
  setSchedulePaused(id: string, paused: boolean): Promise<boolean>;
  /** Remove; false when there was no such schedule. */
  deleteSchedule(id: string): Promise<boolean>;
  /** Compare-and-set of the next firing from `expected` to `next`; true when this call moved it. */
  advanceSchedule(
    id: string,
    expected: number,
    next: number | null,
    firing: FiringRecord | null,
  ): Promise<boolean>;

  /** The webhook deliveries owed (see `NotificationOutbox`). */
  readonly outbox: NotificationOutbox;

  /**
   * Group-commit figures (benchmarks): transactions, writes, the fsyncs the daemon ran itself
   * (SQLite), and the SQL statements run and write-ahead log pages written when counting them
   * was asked for (SQLite).
   */
  commitStats(): {
    transactions: number;
    requests: number;
    fsyncs?: number;
    statements?: number;
    walFrames?: number;
  };
  /** The schema version the database holds now (one read; readiness probes). */
  appliedSchemaVersion(): Promise<number>;
  close(): Promise<void>;
}
