/**
 * The session actor: the single owner of one loaded session. It holds the session's event feed
 * (generation + sequence + replay window + watchers), the in-memory replay of its log, its
 * status and the turn in progress, and it is the only writer of the session's log.
 *
 * Boundary rule: everything that reads or appends the log runs through the mailbox, one task at
 * a time, so a snapshot and the cursor sent with it always agree and appends never race. Live
 * deltas go straight to the feed (they are not durable and need no ordering with the log).
 * A failure that is not the model's or a tool's (a bug, a storage error mid-turn) crashes the
 * actor: it reports to its supervisor, which replaces it with a new one (a new generation).
 */
import { v7 as uuidv7 } from "uuid";
import type {
  CancelAnswer as CancelResult,
  InputIntent,
  InputReceipt,
  InterruptAnswer as InterruptResult,
} from "../../api/inputs.js";
import type { SessionPreview, SessionSnapshot, SessionStatus } from "../../api/session-snapshot.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import { applyEntry, collectState, type RestoredState } from "../../log/collect-state.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import { buildChain } from "../../log/entry-hash.js";
import { AppendConflictError, LogCorruptError } from "../../log/errors.js";
import { classifyDelta, type LogHeadRef } from "../../log/session-log.js";
import { userMessage } from "../../model/items.js";
import type { JsonObject } from "../../model/json.js";
import { boundEntry, boundText } from "../history/bounded-entry.js";
import { tailPage } from "../history/history-page.js";
import { extendPreview, previewOf } from "../history/preview.js";
import {
  projectEntry,
  projectsToHistory,
  recordToolNames,
  type ToolNames,
} from "../history/project-history.js";
import { InputUnknownError } from "../storage/errors.js";
import {
  admitInput,
  cancelInput,
  cancelInputsThrough,
  getReceipt,
  type InputRow,
  listPendingInputs,
  markInputsCommitted,
} from "../storage/inputs-table.js";
import {
  deleteSessionRows,
  getSession,
  type SessionRow,
  setPreview,
  touchActivity,
  updateUsage,
} from "../storage/sessions-table.js";
import { isStorageUnavailable, storageFailureText } from "../storage/storage-unavailable.js";
import { endTurn, runningTurnOf, startTurn, type TurnRow } from "../storage/turns-table.js";
import { SessionFeed } from "../stream/session-feed.js";
import type { FirstBatch } from "../stream/sse-stream.js";
import { Mailbox } from "./mailbox.js";
import { closeOpenCalls, type OpenCallReason } from "./open-tool-calls.js";
import { publishEvent } from "./session-events.js";
import type { SessionServices } from "./session-services.js";
import { idleStatus, sessionSnapshot } from "./session-snapshot.js";
import { storageUnavailableMessage, type TurnEnding, TurnRun } from "./turn-run.js";

/** Waits between attempts to write what a storage failure held back (a turn's end or start). */
const storageRetryDelaysMs = [250, 500, 1_000, 2_000, 5_000];

/** A session that cannot take the request now (409 session_busy). */
export class SessionBusyError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is running a turn; interrupt it or wait until it is idle`);
    this.name = "SessionBusyError";
  }
}

/** The actor was stopped (deleted, unloaded, restarted); the caller should look the session up again. */
export class ActorStoppedError extends Error {
  constructor(readonly sessionId: string) {
    super(`session ${sessionId} actor stopped`);
    this.name = "ActorStoppedError";
  }
}

/** The note the model reads after a daemon restart cut a turn short. */
export const restartNoteText =
  "[Skein] The daemon restarted while this turn was running. Tool calls that were in flight are marked " +
  "interrupted with an unknown outcome; check their effects before retrying anything, then continue the task.";

export type StopReason = "unload" | "restart" | "shutdown" | "deleted" | "crashed";

/** What an actor tells its supervisor besides what its methods return. */
export interface ActorSupervisor {
  /** The actor failed unexpectedly and stopped; the supervisor may replace it. */
  crashed(actor: SessionActor, error: unknown): void;
  /** The session's summary changed: activity, preview, usage or input order. */
  summaryChanged(actor: SessionActor): void;
  /** The session's status changed. */
  statusChanged(actor: SessionActor, status: SessionStatus): void;
  /** The session was deleted (its rows and log are gone). */
  deleted(actor: SessionActor): void;
}

export class SessionActor {
  readonly sessionId: string;
  /** The session this one was forked from (null: not a fork). */
  readonly parentId: string | null;
  readonly feed: SessionFeed;
  readonly #services: SessionServices;
  readonly #mailbox = new Mailbox();
  readonly #supervisor: ActorSupervisor;
  #state: RestoredState;
  readonly #head: LogHeadRef;
  #headPosition: number;
  readonly #toolNames: ToolNames = new Map();
  #preview: SessionPreview;
  #status: SessionStatus = idleStatus;
  #turn: TurnRun | null = null;
  #turnStarting = false;
  #stopped = false;
  #stopping = false;
  #lastUsedAt: number;
  /** Set once a read or a head check found the stored log changed: the session takes nothing more. */
  #corrupt: LogCorruptError | null = null;
  /** Failed attempts to write the current turn's end or the next turn's start. */
  #storageFailures = 0;
  #storageRetry: NodeJS.Timeout | null = null;
  /** Whether the ending turn's error event has gone out (it goes out once, whatever retries follow). */
  #endingReported = false;

  private constructor(
    services: SessionServices,
    row: SessionRow,
    entries: readonly PositionedEntry[],
    supervisor: ActorSupervisor,
  ) {
    this.sessionId = row.id;
    this.parentId = row.parentId;
    this.#services = services;
    this.#supervisor = supervisor;
    this.feed = new SessionFeed(services.feedOptions);
    this.#state = collectState(entries);
    const last = entries[entries.length - 1];
    this.#head = { sessionId: row.id, hash: last?.hash ?? null };
    this.#headPosition = last?.position ?? -1;
    for (const { entry } of entries) recordToolNames(entry, this.#toolNames);
    this.#preview = row.preview;
    this.#lastUsedAt = services.now();
  }

  /**
   * Load a session from durable state: its row and its verified log. Throws the store's errors
   * (SessionNotFoundError, LogCorruptError, storage failures) unchanged.
   */
  static async load(
    services: SessionServices,
    sessionId: string,
    supervisor: ActorSupervisor,
  ): Promise<SessionActor> {
    const row = getSession(services.db, sessionId);
    if (row === null) throw new ActorStoppedError(sessionId);
    const entries = await services.store.readAll(sessionId);
    return new SessionActor(services, repairPreview(services, row, entries), entries, supervisor);
  }

  get status(): SessionStatus {
    return this.#status;
  }

  get cursor(): StreamCursor {
    return { generation: this.feed.generation, sequence: this.feed.sequence };
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** True when nothing runs, nothing waits and nobody watches: the actor may be unloaded. */
  isQuiet(now: number, idleMs: number): boolean {
    return (
      this.#turn === null &&
      !this.#turnStarting &&
      this.feed.watcherCount === 0 &&
      now - this.#lastUsedAt >= idleMs &&
      listPendingInputs(this.#services.db, this.sessionId).length === 0
    );
  }

  /** Whether a turn is in progress. */
  get busy(): boolean {
    return this.#turn !== null || this.#turnStarting;
  }

  /** Resolves when the running turn (if any) has ended. */
  async turnEnded(): Promise<void> {
    await this.#turn?.done;
  }

  /** The snapshot with the newest `tail` history positions, read from storage. */
  snapshot(tail?: number): Promise<SessionSnapshot> {
    return this.#task(() => this.#snapshotNow(tail, this.cursor));
  }

  /** The first batch of a stream attach: a replay after `after`, or a reset with a snapshot. */
  openStream(after: StreamCursor | null, tail?: number): Promise<FirstBatch> {
    return this.#task(async () => {
      const read = this.feed.read(after);
      if (read.kind === "events") return { cursor: read.cursor, events: read.events };
      const cursor = { generation: this.feed.generation, sequence: read.cursor };
      const snapshot = await this.#snapshotNow(tail, cursor);
      return { cursor: read.cursor, events: [], reset: { reason: read.reason, snapshot } };
    });
  }

  /** Admit an input (idempotently) and start a turn for it when the session is idle. */
  submit(inputId: string, intent: InputIntent, clientId: string | null): Promise<InputReceipt> {
    return this.#task(async () => {
      const { db, store } = this.#services;
      this.#checkLogIntact();
      // Through the group commit: concurrent admissions of many sessions share one fsync, and
      // the input is durable before the receipt (and so the 202) is returned.
      const admission = await store.groupCommit(this.sessionId, () => {
        const admitted = admitInput(db, {
          session: this.sessionId,
          id: inputId,
          kind: intent.kind,
          intent: intentJson(intent),
          clientId,
          acceptedAt: this.#services.now(),
        });
        if (admitted.created) touchActivity(db, this.sessionId, this.#services.now());
        return admitted;
      });
      if (admission.created) {
        publishEvent(this.feed, "input", { input: admission.receipt });
        this.#supervisor.summaryChanged(this);
        queueMicrotask(() => this.kick());
      }
      return admission.receipt;
    });
  }

  /** Cancel queued inputs through `throughOrder` and stop the running turn if it is `runId`. */
  interrupt(runId: string | null, throughOrder: number): Promise<InterruptResult> {
    // Stop the model at once; the bookkeeping waits its turn in the mailbox.
    const requested = runId !== null && this.#turn !== null && this.#turn.id === runId;
    if (requested) this.#requestInterrupt();
    return this.#task(() => {
      const cancelled = cancelInputsThrough(this.#services.db, this.sessionId, throughOrder);
      this.#publishReceipts(cancelled);
      return {
        run_id: runId,
        state: requested ? "requested" : "already_ended",
        cancelled_input_ids: cancelled,
      };
    });
  }

  /** Cancel one input: drop it from the queue, or interrupt the turn it alone belongs to. */
  cancelInput(inputId: string): Promise<CancelResult> {
    return this.#task(() => {
      const result = cancelInput(this.#services.db, this.sessionId, inputId);
      if (result === "cancelled") {
        this.#publishReceipts([inputId]);
        return { result, input: this.#receipt(inputId) };
      }
      const turn = this.#turn;
      if (turn !== null && turn.inputIds.length === 1 && turn.inputIds[0] === inputId) {
        this.#requestInterrupt();
        return { result: "interrupt_requested", input: this.#receipt(inputId) };
      }
      return { result: "not_pending", input: this.#receipt(inputId) };
    });
  }

  /** The receipt of one of this session's inputs (404 input_unknown when it has none such). */
  receipt(inputId: string): InputReceipt {
    return this.#receipt(inputId);
  }

  /** Delete the session: every row, every entry. Refused while a turn runs. */
  delete(): Promise<void> {
    return this.#task(() => {
      if (this.busy) throw new SessionBusyError(this.sessionId);
      // Rows first: if storage refuses, the session stays as it was and keeps its actor.
      deleteSessionRows(this.#services.db, this.sessionId);
      this.#stop("deleted");
      this.#supervisor.deleted(this);
    });
  }

  /**
   * Stop the actor. A running turn is aborted: after a debug restart it ends `failed` (as if
   * the actor had crashed); at shutdown it is left `running` in storage, so the next daemon
   * start recovers it like after a crash.
   */
  async stop(reason: StopReason): Promise<void> {
    if (this.#stopped || this.#stopping) return;
    // From here no new turn starts, even for inputs still queued (the next actor takes them).
    this.#stopping = true;
    const turn = this.#turn;
    if (turn !== null && reason !== "shutdown") {
      turn.abort("crashed");
      await turn.done;
      // The turn's end (its log entries and turn row) is queued in the mailbox: let it finish.
      await this.#mailbox.idle();
    }
    this.#stop(reason);
    if (turn !== null && reason === "shutdown") turn.abort("shutdown");
  }

  /**
   * Run what waits: recover a turn a crash or a shutdown left `running` (abandoned, open calls
   * answered "outcome unknown", a restart note, then a new turn), or else start a turn for
   * queued inputs. Resolves once that first step is done (or found nothing to do).
   */
  recoverOrKick(): Promise<void> {
    if (!this.#canStartTurn()) return Promise.resolve();
    this.#turnStarting = true;
    return this.#task(async () => {
      try {
        if (!this.#mayRunTurns() || this.#turn !== null) return;
        const cut = runningTurnOf(this.#services.db, this.sessionId);
        if (cut !== null) {
          await this.#recoverAbandoned(cut);
          return;
        }
        const pending = listPendingInputs(this.#services.db, this.sessionId);
        if (pending.length > 0) await this.#startTurn(pending);
      } finally {
        this.#turnStarting = false;
      }
    }).then(
      () => {
        this.#storageFailures = 0;
      },
      (error: unknown) => this.#onStartFailure(error),
    );
  }

  /** Start a turn if the session is idle and inputs wait (called after admissions, turn ends and loads). */
  kick(): void {
    void this.recoverOrKick();
  }

  /**
   * The stored log no longer verifies (or no longer ends where this actor wrote it): from now
   * on the session takes no input and writes nothing, and a running turn is stopped.
   */
  markCorrupt(error: LogCorruptError): void {
    if (this.#corrupt !== null) return;
    this.#corrupt = error;
    this.#services.logger.error({ session: this.sessionId, err: error }, "session log failed verification");
    this.#turn?.abort("corrupt");
  }

  // ---------------------------------------------------------------------------------------------

  #canStartTurn(): boolean {
    return !this.busy && this.#mayRunTurns();
  }

  /** Nothing forbids running turns (stopping, a corrupt log, a storage retry pending, a drain). */
  #mayRunTurns(): boolean {
    return (
      !this.#stopped &&
      !this.#stopping &&
      this.#corrupt === null &&
      this.#storageRetry === null &&
      !this.#services.isDraining()
    );
  }

  /** Inside the mailbox: a turn a crash cut short becomes abandoned, with a note, then a new turn runs. */
  async #recoverAbandoned(turn: TurnRow): Promise<void> {
    const results = closeOpenCalls(this.#state.history, "daemon_restart");
    const now = this.#services.now();
    const entries: LogEntry[] = [];
    if (results.length > 0) entries.push({ kind: "tool_results", ts: now, items: results, turn_id: turn.id });
    entries.push({
      kind: "note",
      ts: now,
      origin: "daemon_restart",
      item: userMessage(restartNoteText),
      turn_id: turn.id,
    });
    await this.#commit(entries, () =>
      endTurn(this.#services.db, turn.id, { state: "abandoned", endedAt: now }),
    );
    this.#services.logger.info(
      { session: this.sessionId, turn: turn.id },
      "recovered a turn cut short by a restart",
    );
    this.#publishReceipts(turn.inputIds);
    await this.#startTurn([]);
  }

  /** Starting (or recovering) a turn failed: storage trouble is retried later, anything else is a crash. */
  #onStartFailure(error: unknown): void {
    if (error instanceof ActorStoppedError || this.#stopped) return;
    if (error instanceof LogCorruptError) {
      this.markCorrupt(error);
      return;
    }
    if (!isStorageUnavailable(error)) {
      this.#crash(error);
      return;
    }
    this.#services.logger.warn(
      { session: this.sessionId, err: error },
      "could not start a turn: storage unavailable; will retry",
    );
    this.#retryAfterStorageFailure(() => this.kick());
  }

  /** Run `attempt` again after a growing delay (the storage may have room again by then). */
  #retryAfterStorageFailure(attempt: () => void): void {
    const delay = storageRetryDelaysMs[Math.min(this.#storageFailures, storageRetryDelaysMs.length - 1)]!;
    this.#storageFailures++;
    if (this.#storageRetry !== null) clearTimeout(this.#storageRetry);
    this.#storageRetry = setTimeout(() => {
      this.#storageRetry = null;
      if (!this.#stopped) attempt();
    }, delay);
    this.#storageRetry.unref();
  }

  /** Before admitting input: the log must still verify as far as this actor knows, and end where it wrote it. */
  #checkLogIntact(): void {
    if (this.#corrupt !== null) throw this.#corrupt;
    const stored = this.#services.store.readHeadSync(this.sessionId);
    if (stored?.hash === this.#head.hash && stored.position === this.#headPosition) return;
    const position = Math.min(stored?.position ?? -1, this.#headPosition) + 1;
    const reason =
      stored === null || stored.position < this.#headPosition
        ? `the log ends at position ${stored?.position ?? -1} but this daemon wrote it up to ${this.#headPosition}`
        : "the log's head is not the entry this daemon wrote last";
    const error = new LogCorruptError(this.sessionId, position, reason);
    this.markCorrupt(error);
    throw error;
  }

  /** Inside the mailbox: commit the turn's inputs with the turn row, then run the model. */
  async #startTurn(inputs: readonly InputRow[]): Promise<void> {
    const turnId = uuidv7();
    const now = this.#services.now();
    const entries: LogEntry[] = [];
    // Defensive: a turn never starts with an unanswered call (the worker would run it again).
    const stale = closeOpenCalls(this.#state.history, "failed");
    if (stale.length > 0) entries.push({ kind: "tool_results", ts: now, items: stale, turn_id: turnId });
    const firstInputEntry = entries.length;
    for (const input of inputs) entries.push(inputEntry(input, turnId, now));
    const inputIds = inputs.map((input) => input.id);
    await this.#commit(entries, (positions) => {
      startTurn(this.#services.db, { id: turnId, session: this.sessionId, inputIds, startedAt: now });
      markInputsCommitted(
        this.#services.db,
        turnId,
        inputs.map((input, i) => ({
          id: input.id,
          transcriptPosition: positions[firstInputEntry + i] ?? null,
        })),
      );
    });
    this.#publishReceipts(inputIds);
    this.#endingReported = false;
    this.#setStatus({ phase: "running", run_id: turnId, interrupt_requested: false, blocking_reason: null });
    const row = this.#row();
    const turn = new TurnRun({
      id: turnId,
      inputIds,
      services: this.#services,
      session: row,
      state: this.#state,
      feed: this.feed,
      commitItems: (items) =>
        this.#task(() => this.#commit(classifyDelta(items, this.#services.now(), { turn_id: turnId }))).catch(
          (error: unknown) => {
            this.#stopTurnAfterFailedCommit(turn, error);
            throw error;
          },
        ),
    });
    this.#turn = turn;
    turn.start().then(
      (ending) => this.#task(() => this.#endTurn(turn, ending)).catch((error: unknown) => this.#crash(error)),
      (error: unknown) => this.#crash(error),
    );
  }

  /** A step of the turn could not be logged: the turn stops (the worker unwinds on the same error). */
  #stopTurnAfterFailedCommit(turn: TurnRun, error: unknown): void {
    if (error instanceof LogCorruptError) {
      this.markCorrupt(error);
    } else if (error instanceof AppendConflictError) {
      // The daemon is the only writer of its logs: another one appended behind its back.
      this.markCorrupt(
        new LogCorruptError(this.sessionId, this.#headPosition + 1, "another writer appended"),
      );
    } else if (isStorageUnavailable(error)) {
      turn.abort("storage", storageFailureText(error));
    }
  }

  /**
   * Inside the mailbox: close open calls if needed, log the turn's end, end the turn row. When
   * storage refuses the write, clients hear about it at once and the end is written again
   * later (the mailbox stays free meanwhile, so snapshots and streams keep working).
   */
  async #endTurn(turn: TurnRun, ending: TurnEnding): Promise<void> {
    if (this.#turn !== turn) return;
    if (!this.#endingReported && ending.error !== undefined) {
      this.#endingReported = true;
      publishEvent(this.feed, "error", {
        run_id: turn.id,
        code: ending.error.code,
        // A provider's error text is its own; an event carries at most its start.
        message: boundText(ending.error.message).text,
      });
    }
    if (this.#corrupt !== null) {
      // Nothing more is written to a log that fails verification; the turn ends in memory only.
      this.#finishTurn(turn, "failed");
      return;
    }
    const now = this.#services.now();
    const entries: LogEntry[] = [];
    const reason: OpenCallReason = ending.state === "interrupted" ? "interrupted" : "failed";
    const results = ending.state === "completed" ? [] : closeOpenCalls(this.#state.history, reason);
    if (results.length > 0) entries.push({ kind: "tool_results", ts: now, items: results, turn_id: turn.id });
    entries.push({ kind: "turn_end", ts: now, turn_count: ending.turnCount });
    entries.push({ kind: "run_outcome", ts: now, outcome: ending.outcome, interrupted: ending.interrupted });
    try {
      await this.#commit(entries, () => {
        endTurn(this.#services.db, turn.id, {
          state: ending.state,
          endedAt: now,
          error: ending.error?.message ?? null,
        });
        if (Object.keys(ending.usage).length > 0)
          updateUsage(this.#services.db, this.sessionId, ending.usage);
      });
    } catch (error) {
      if (error instanceof LogCorruptError || error instanceof AppendConflictError) {
        this.#stopTurnAfterFailedCommit(turn, error);
        this.#finishTurn(turn, "failed");
        return;
      }
      if (!isStorageUnavailable(error)) throw error;
      this.#holdTurnEnd(turn, ending, error);
      return;
    }
    this.#storageFailures = 0;
    this.#finishTurn(turn, ending.state);
  }

  /** The turn's end could not be written: say so once, show it in the status, and try again later. */
  #holdTurnEnd(turn: TurnRun, ending: TurnEnding, error: unknown): void {
    const detail = storageFailureText(error);
    this.#services.logger.warn(
      { session: this.sessionId, turn: turn.id, err: error },
      "could not log a turn's end",
    );
    if (!this.#endingReported) {
      this.#endingReported = true;
      publishEvent(this.feed, "error", {
        run_id: turn.id,
        code: "storage_unavailable",
        message: storageUnavailableMessage(detail),
      });
    }
    this.#setStatus({ ...this.#status, blocking_reason: { code: "storage_unavailable", detail } });
    this.#retryAfterStorageFailure(() => {
      this.#task(() => this.#endTurn(turn, ending)).catch((failure: unknown) => this.#crash(failure));
    });
  }

  /** The turn is over (logged, or given up on a corrupt log): tell the clients and let the queue run. */
  #finishTurn(turn: TurnRun, state: TurnEnding["state"]): void {
    this.#turn = null;
    this.#publishReceipts(turn.inputIds);
    publishEvent(this.feed, "turn_completed", { run_id: turn.id, state, input_ids: [...turn.inputIds] });
    this.#setStatus(
      this.#corrupt === null
        ? idleStatus
        : { ...idleStatus, blocking_reason: { code: "log_corrupt", detail: this.#corrupt.message } },
    );
    if (!this.#stopped) queueMicrotask(() => this.kick());
  }

  #requestInterrupt(): void {
    const turn = this.#turn;
    if (turn === null || turn.interruptRequested) return;
    turn.abort("interrupted");
    this.#setStatus({ ...this.#status, interrupt_requested: true });
  }

  /**
   * Append entries through the store's group commit, with `alongside` (given the new entries'
   * positions), the preview and the activity time in the same savepoint: concurrent sessions
   * share one fsync, and a session's log and its rows never disagree.
   */
  async #commit(entries: readonly LogEntry[], alongside?: (positions: number[]) => void): Promise<void> {
    const { db, store } = this.#services;
    if (this.#corrupt !== null) throw this.#corrupt;
    const positions = entries.map((_, i) => this.#headPosition + 1 + i);
    const preview = extendPreview(this.#preview, placed(entries, positions));
    if (entries.length === 0) {
      if (alongside !== undefined) await store.groupCommit(this.sessionId, () => alongside(positions));
      return;
    }
    const chain = buildChain(this.#head.hash, entries);
    await store.append(this.sessionId, chain, () => {
      alongside?.(positions);
      setPreview(db, this.sessionId, preview);
      touchActivity(db, this.sessionId, this.#services.now());
    });
    this.#applyCommitted(entries, chain.at(-1)?.hash, preview);
    this.#supervisor.summaryChanged(this);
  }

  /** After a commit: advance the head, replay into memory, publish each new history entry (large parts truncated). */
  #applyCommitted(entries: readonly LogEntry[], headHash: string | undefined, preview: SessionPreview): void {
    if (headHash === undefined) return;
    for (const entry of entries) {
      this.#headPosition += 1;
      applyEntry(this.#state, entry);
      for (const projected of projectEntry({ position: this.#headPosition, entry }, this.#toolNames)) {
        publishEvent(this.feed, "message", { entry: boundEntry(projected, this.sessionId) });
      }
    }
    this.#head.hash = headHash;
    this.#state.head_hash = headHash;
    this.#preview = preview;
    this.#lastUsedAt = this.#services.now();
    publishEvent(this.feed, "committed", { high_water: this.#headPosition });
  }

  async #snapshotNow(tail: number | undefined, cursor: StreamCursor): Promise<SessionSnapshot> {
    const { db, store, historySecret } = this.#services;
    const entries = await store.readAll(this.sessionId).catch((error: unknown) => {
      if (error instanceof LogCorruptError) this.markCorrupt(error);
      throw error;
    });
    const history = tailPage(entries, {
      sessionId: this.sessionId,
      secret: historySecret,
      now: this.#services.now(),
      ...(tail === undefined ? {} : { tail }),
    });
    this.#lastUsedAt = this.#services.now();
    return sessionSnapshot(this.#row(), this.#status, cursor, listPendingInputs(db, this.sessionId), history);
  }

  #row(): SessionRow {
    const row = getSession(this.#services.db, this.sessionId);
    if (row === null) throw new ActorStoppedError(this.sessionId);
    return row;
  }

  #receipt(inputId: string): InputReceipt {
    const receipt = getReceipt(this.#services.db, this.sessionId, inputId);
    if (receipt === null) throw new InputUnknownError(this.sessionId, inputId);
    return receipt;
  }

  #publishReceipts(inputIds: readonly string[]): void {
    for (const id of inputIds) {
      const receipt = getReceipt(this.#services.db, this.sessionId, id);
      if (receipt !== null) publishEvent(this.feed, "input", { input: receipt });
    }
  }

  #setStatus(status: SessionStatus): void {
    this.#status = status;
    this.#supervisor.statusChanged(this, status);
    publishEvent(this.feed, "status", {
      phase: status.phase,
      run_id: status.run_id,
      interrupt_requested: status.interrupt_requested,
    });
  }

  /** Queue a task; a stopped actor refuses new work. */
  #task<T>(task: () => Promise<T> | T): Promise<T> {
    if (this.#stopped) return Promise.reject(new ActorStoppedError(this.sessionId));
    this.#lastUsedAt = this.#services.now();
    return this.#mailbox.run(() => {
      if (this.#stopped) throw new ActorStoppedError(this.sessionId);
      return task();
    });
  }

  #stop(reason: StopReason): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#storageRetry !== null) clearTimeout(this.#storageRetry);
    this.#storageRetry = null;
    this.feed.close();
    this.#services.logger.info({ session: this.sessionId, reason }, "session actor stopped");
  }

  /** An unexpected failure: end the turn as failed if possible, stop, and let the supervisor replace us. */
  #crash(error: unknown): void {
    if (this.#stopped) return;
    const turn = this.#turn;
    this.#services.logger.error({ session: this.sessionId, err: error }, "session actor crashed");
    if (turn !== null) {
      turn.abort("crashed");
      try {
        endTurn(this.#services.db, turn.id, {
          state: "failed",
          endedAt: this.#services.now(),
          error: error instanceof Error ? error.message : String(error),
        });
      } catch {
        // Storage is what failed: the turn stays `running` and the next start recovers it.
      }
      publishEvent(this.feed, "error", {
        run_id: turn.id,
        code: "session_error",
        message: "the session actor failed and was restarted; see the daemon log",
      });
      this.#turn = null;
    }
    this.#stop("crashed");
    this.#supervisor.crashed(this, error);
  }
}

/**
 * Forks made before the daemon stored a fork's preview at creation show none although their
 * log has history: compute it from the log once and store it.
 */
function repairPreview(
  services: SessionServices,
  row: SessionRow,
  entries: readonly PositionedEntry[],
): SessionRow {
  if (row.preview.transcript_count > 0 || !entries.some(({ entry }) => projectsToHistory(entry))) return row;
  const preview = previewOf(entries);
  setPreview(services.db, row.id, preview);
  return { ...row, preview };
}

/** The log entry that delivers an input to the model. */
function inputEntry(input: InputRow, turnId: string, ts: number): LogEntry {
  const intent = input.intent as InputIntent;
  if (intent.kind === "message") {
    return { kind: "user_input", ts, item: userMessage(intent.text), turn_id: turnId, input_id: input.id };
  }
  return { kind: "continuation", ts, turn_id: turnId, input_id: input.id };
}

function placed(entries: readonly LogEntry[], positions: readonly number[]) {
  return entries.map((entry, i) => ({ entry, position: positions[i]! }));
}

/** The intent as the JSON the inputs table fingerprints (kind and text; never client_id). */
function intentJson(intent: InputIntent): JsonObject {
  return intent.kind === "message" ? { kind: "message", text: intent.text } : { kind: "continue" };
}
