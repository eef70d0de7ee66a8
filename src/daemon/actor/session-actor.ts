/**
 * The session actor: the single owner of one loaded session. It holds the session's event feed
 * (generation, sequence, replay window, watchers) and its life (actor-lifecycle.ts: the mailbox,
 * stopping, crashing), builds the one port its parts are given (session/session-port.ts) and puts
 * together the parts that do the work: the log writer, the input queue, the approval gate, the
 * compactor and the turn scheduler.
 *
 * Boundary rule: everything that reads or appends the log runs through the mailbox, one task at
 * a time, so a snapshot and the cursor sent with it always agree and appends never race. Live
 * deltas go straight to the feed (they are not durable and need no ordering with the log). A
 * failure that is not the model's, a tool's or the storage's (a bug) crashes the actor: it
 * reports to its supervisor, which replaces it with a new one (a new generation).
 */

import type {
  ApprovalAnswerBody,
  ApprovalPolicyAnswer,
  ApprovalPolicyBody,
  ApprovalRecord,
} from "../../api/approvals.js";
import type {
  CancelAnswer as CancelResult,
  InputIntent,
  InputReceipt,
  InterruptAnswer as InterruptResult,
} from "../../api/inputs.js";
import type { SessionSettings, SessionSettingsBody } from "../../api/session-settings.js";
import type { CompactAnswer, SessionSnapshot, SessionStatus } from "../../api/session-snapshot.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import type { PositionedEntry } from "../../log/entries.js";
import type { LogCorruptError } from "../../log/errors.js";
import type { RestoredLog } from "../../log/tail-restore.js";
import { CompactionRunningError, SessionBusyError } from "../errors.js";
import type { HistoryLog } from "../history/history-log.js";
import type { Sender } from "../http/credential.js";
import type { RepairAnswer } from "../session/context-repair.js";
import { requiredRow } from "../session/session-row.js";
import type { SessionServices } from "../session/session-services.js";
import type { InputSource } from "../storage/inputs-table.js";
import type { CreatedSession } from "../storage/session-storage.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { SessionFeed } from "../stream/session-feed.js";
import type { FirstBatch } from "../stream/sse-stream.js";
import { sessionBudgetSource } from "../turn/session-budget-source.js";
import { ActorLifecycle } from "./actor-lifecycle.js";
import { creationSnapshot, finishSnapshot, type SnapshotParts, snapshotParts } from "./actor-snapshot.js";
import type { ActorSupervisor, StopReason } from "./actor-supervisor.js";
import { type CreatedTurn, runCreatedTurn } from "./first-input.js";
import { type SessionParts, sessionParts } from "./session-parts.js";
import {
  changeSettings,
  repairContext,
  repairOwnBudget,
  repairPreview,
  setApprovalPolicy,
  setBudget,
  startCompaction,
} from "./session-requests.js";

export class SessionActor {
  readonly sessionId: string;
  /** The session this one was forked from (null: not a fork). */
  readonly parentId: string | null;
  /** The lease epoch this actor was loaded under and writes under (null: one node, no leases). */
  readonly epoch: number | null;
  readonly feed: SessionFeed;
  readonly #services: SessionServices;
  readonly #supervisor: ActorSupervisor;
  /** The parts that do the work, and the port the actor lends them: built once, here. */
  readonly #parts: SessionParts;
  readonly #life: ActorLifecycle;

  private constructor(
    services: SessionServices,
    row: SessionRow,
    restored: RestoredLog,
    supervisor: ActorSupervisor,
    epoch: number | null,
  ) {
    this.sessionId = row.id;
    this.parentId = row.parentId;
    this.epoch = epoch;
    this.#services = services;
    this.#supervisor = supervisor;
    this.feed = new SessionFeed(services.feedOptions);
    // The parts call back only once built (none of them runs anything as it is made).
    this.#parts = sessionParts(services, row, restored, this.feed, (task) => this.#life.run(task), {
      committed: () => {
        this.#life.touch();
        supervisor.summaryChanged(this);
      },
      halted: () => this.#life.halted,
      statusChanged: (status) => supervisor.statusChanged(this, status),
      crash: (error) => {
        if (this.#life.crash(error)) supervisor.crashed(this, error);
      },
    });
    this.#life = new ActorLifecycle(row.id, services, this.#parts, this.feed);
  }

  /**
   * Load a session from its row and its restored log (log/tail-restore.ts); throws the store's errors
   * unchanged. `epoch`: the lease it is loaded under (its storage writes under it), null on one node.
   */
  static async load(
    services: SessionServices,
    sessionId: string,
    supervisor: ActorSupervisor,
    epoch: number | null = null,
  ): Promise<SessionActor> {
    const row = await requiredRow(services.storage, sessionId);
    const restored = await services.storage.restoreLog(sessionId);
    const repaired = await repairOwnBudget(services, await repairPreview(services, row, restored), restored);
    return new SessionActor(services, repaired, restored, supervisor, epoch);
  }

  /**
   * A session just created, from what its creation wrote; its snapshot as created. `turn`: the first
   * turn its creation started, published and run at once after the snapshot's cursor (first-input.ts).
   */
  static fromCreation(
    services: SessionServices,
    created: CreatedSession,
    supervisor: ActorSupervisor,
    turn: CreatedTurn | null = null,
  ) {
    const actor = new SessionActor(services, created.row, created.restored, supervisor, created.epoch);
    const parts = actor.#parts;
    const { status, cursor } = actor;
    // Nothing else can have entered the new actor's mailbox yet: this runs as if inside it.
    const shown = turn === null ? created : runCreatedTurn(parts, created, turn);
    return { actor, snapshot: () => creationSnapshot(parts, status, cursor, shown, services) };
  }

  get status(): SessionStatus {
    return this.#parts.turns.status;
  }

  get cursor(): StreamCursor {
    return { generation: this.feed.generation, sequence: this.feed.sequence };
  }

  get stopped(): boolean {
    return this.#life.stopped;
  }

  /** Whether a turn (or a compaction) is in progress. */
  get busy(): boolean {
    return this.#parts.turns.busy || this.#parts.compactor.running;
  }

  /** True when nothing runs, nothing waits and nobody watches: the actor may be unloaded. */
  async isQuiet(now: number, idleMs: number): Promise<boolean> {
    if (this.busy || this.feed.watcherCount > 0 || !this.#life.unusedFor(now, idleMs)) return false;
    return (await this.#parts.inputs.pending()).length === 0;
  }

  /** Resolves when no turn runs or the running one waits for a person's answer (or, handing off, runs no tool). */
  turnSettled(handOff = false): Promise<void> {
    return this.#parts.turns.turnSettled(handOff);
  }

  /** Answer a call that waits for approval (once: see ApprovalGate.answer). */
  answerApproval(callId: string, body: ApprovalAnswerBody, sender: Sender): Promise<ApprovalRecord> {
    return this.#life.run(async () => {
      await this.#parts.log.checkIntact();
      return this.#parts.gate.answer(callId, body, sender);
    });
  }

  /** Set the session's own approval policy and/or approval mode, as a log entry. */
  setApprovalPolicy(body: ApprovalPolicyBody): Promise<ApprovalPolicyAnswer> {
    return this.#life.run(() => setApprovalPolicy(this.#parts.port, body));
  }

  /** Set (or clear: null) the session's own budget, as a `budget_changed` entry. */
  setBudget(budget: Parameters<typeof setBudget>[1]): Promise<void> {
    return this.#life.run(() => setBudget(this.#parts.port, budget));
  }

  /**
   * The snapshot with the newest `tail` history positions: parts taken in the mailbox (so they agree),
   * the history read after, outside it (a reconnect never holds up the session's commits).
   */
  async snapshot(tail?: number): Promise<SessionSnapshot> {
    const parts = await this.#life.run(() => this.#snapshotParts(this.cursor));
    return finishSnapshot(parts, tail, this.sessionId, this.#services);
  }

  /** The first batch of a stream attach: a replay after `after`, or a reset with a snapshot. */
  async openStream(after: StreamCursor | null, tail?: number): Promise<FirstBatch> {
    const { read, parts } = await this.#life.run(async () => {
      const read = this.feed.read(after);
      if (read.kind === "events") return { read, parts: null };
      const cursor = { generation: this.feed.generation, sequence: read.cursor };
      return { read, parts: await this.#snapshotParts(cursor) };
    });
    if (read.kind === "events" || parts === null)
      return { cursor: read.cursor, events: read.kind === "events" ? read.events : [] };
    const snapshot = await finishSnapshot(parts, tail, this.sessionId, this.#services);
    return { cursor: read.cursor, events: [], reset: { reason: read.reason, snapshot } };
  }

  /** The log as committed, for a history page (outside the mailbox); a corrupt session's read whole. */
  historyLog(): Promise<HistoryLog> {
    return this.#parts.log.readableLog();
  }

  /** A whole log read from storage must hold what this actor committed (throws LogCorruptError, marking the session). */
  confirmRead(entries: readonly PositionedEntry[]): void {
    this.#parts.log.confirmRead(entries);
  }

  /**
   * Admit an input (idempotently) and start a turn for it when the session is idle: a new input
   * of an idle session is admitted in the same commit as its turn's start.
   */
  submit(inputId: string, intent: InputIntent, source: InputSource): Promise<InputReceipt> {
    return this.#life.run(async () => {
      // The shortcut's commit compares the log's head itself (a log changed behind the
      // daemon's back makes it fail and marks the session corrupt, which the check reports).
      const started = await this.#parts.turns.admitAndStart(inputId, intent, source);
      // Its commit told the supervisor the summary changed.
      if (started !== null) return started;
      await this.#parts.log.checkIntact();
      const admission = await this.#parts.inputs.admit(inputId, intent, source);
      if (admission.created) {
        this.#supervisor.summaryChanged(this);
        queueMicrotask(() => this.#parts.turns.kick());
      }
      return admission.receipt;
    });
  }

  /**
   * Cancel queued inputs through `throughOrder` and stop the running turn if it is `turnId`.
   * Answers once both are durable: the turn's interrupt mark too, so a crash before the turn's
   * end is logged still ends it interrupted.
   */
  interrupt(turnId: string | null, throughOrder: number): Promise<InterruptResult> {
    // Stop the model at once; the bookkeeping waits its turn in the mailbox.
    const stopped =
      turnId !== null && this.#parts.turns.turn?.id === turnId ? this.#parts.turns.requestInterrupt() : null;
    return this.#life.run(() => this.#parts.turns.recordInterrupt(turnId, stopped, throughOrder));
  }

  /** Cancel one input: drop it from the queue, or interrupt the turn it alone belongs to. */
  cancelInput(inputId: string): Promise<CancelResult> {
    return this.#life.run(() => this.#parts.turns.cancelInput(inputId));
  }

  /** The receipt of one of this session's inputs (404 input_unknown when it has none such). */
  receipt(inputId: string): Promise<InputReceipt> {
    return this.#parts.inputs.receipt(inputId);
  }

  /**
   * Change the session's provider profile, model or model parameters from its next model request
   * on (a running turn keeps what it started with); logged as `config_changed`.
   */
  changeSettings(patch: SessionSettingsBody): Promise<SessionSettings> {
    return this.#life.run(() =>
      changeSettings(this.#parts.port, this.#services.describeProvider, () => this.#row(), patch),
    );
  }

  /**
   * Compact the session's context now: plan the cut, then summarize and append in the
   * background (the answer does not wait for the model). Refused while a turn or another
   * compaction runs, and when nothing would be summarized. Turns wait until it has ended.
   */
  compact(): Promise<CompactAnswer> {
    return this.#life.run(async () => {
      await this.#parts.log.checkIntact();
      if (this.#parts.compactor.running) throw new CompactionRunningError(this.sessionId);
      if (this.#parts.turns.busy) throw new SessionBusyError(this.sessionId);
      const row = await this.#row();
      const port = this.#parts.port;
      const budgets = sessionBudgetSource(port, this.#services, row, null);
      return startCompaction(port, this.#services.bindClient, this.#parts.compactor, row, budgets, () => {
        if (!this.#life.stopped) this.#parts.turns.kick();
      });
    });
  }

  /**
   * Leave the items of entries `from`..`to` out of every later request (the log keeps them): the
   * way out when a provider keeps refusing something in the history. Refused while busy (turn, compaction).
   */
  repair(from: number, to: number | undefined): Promise<RepairAnswer> {
    return this.#life.run(async () => {
      await this.#parts.log.checkIntact();
      if (this.busy) throw new SessionBusyError(this.sessionId);
      return repairContext(this.#parts.port, from, to);
    });
  }

  /** Delete the session: its log and every row. Refused while a turn runs. */
  delete(): Promise<void> {
    return this.#life.run(async () => {
      if (this.busy) throw new SessionBusyError(this.sessionId);
      // Storage first: if it refuses, the session stays as it was and keeps its actor.
      await this.#services.storage.deleteSession(this.sessionId);
      this.#life.close("deleted");
      this.#supervisor.deleted(this);
    });
  }

  /** Run what waits: recover a turn a crash cut short, or start one for queued inputs. */
  recoverOrKick(): Promise<void> {
    return this.#parts.turns.recoverOrKick();
  }

  /** A read of the stored log failed verification: the session takes nothing more (its turn stops). */
  markCorrupt(error: LogCorruptError): void {
    this.#parts.log.markCorrupt(error);
  }

  /**
   * Stop the actor, aborting a running turn: after a debug restart it ends `failed`; at shutdown, or
   * with the lease lost, it is left `running` for the next start (or the new owner) to recover.
   */
  stop(reason: StopReason): Promise<void> {
    return this.#life.stop(reason);
  }

  /** Everything a snapshot holds but its history, and the log to read that from (in the mailbox). */
  #snapshotParts(cursor: StreamCursor): Promise<SnapshotParts> {
    this.#life.touch();
    const { status, unstoredUsage } = this.#parts.turns;
    return snapshotParts(this.#parts, { status, cursor, unstoredUsage }, () => this.#row(), this.#services);
  }

  #row(): Promise<SessionRow> {
    return requiredRow(this.#services.storage, this.sessionId);
  }
}
