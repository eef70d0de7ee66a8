/**
 * A session's turns: when one starts (the session is idle and inputs wait), what it commits at
 * its start (its inputs, with their receipts and the turn row) and at its end (open calls
 * closed, turn_end, run_outcome, the turn row ended, usage), and recovery of a turn a crash or a
 * shutdown cut short. A storage failure at either end is held and retried, never a crash. A
 * new input of an idle session is admitted in its turn's start commit, and a turn's last model
 * answer (no tool calls) is held and committed with its end: a plain turn costs two commits. It
 * owns the session's approvals (approval-gate.ts): a turn whose calls wait for an answer keeps
 * running (phase "waiting"); ending it denies what waits; a turn cut short while calls waited is
 * followed by a turn that waits for the same calls again (nothing of their batch had started),
 * unless its interrupt was acknowledged (`recordInterrupt`): then it ends interrupted.
 *
 * This file holds the orchestration (the running turn, the order of commits and publications);
 * what a start and an end commit is built in turn-start.ts and turn-end-entries.ts, a turn cut
 * short is ended in turn-recovery.ts, a turn's steps reach the log through turn-conversation.ts,
 * and storage retries wait in storage-retry.ts.
 *
 * Boundary rule: runs inside the actor's mailbox for everything it writes; the turn itself
 * (`TurnRun`) runs outside it and comes back through the mailbox for each step and for its end.
 */
import { v7 as uuidv7 } from "uuid";
import type { InputIntent, InputReceipt } from "../../api/inputs.js";
import type { SessionStatus } from "../../api/session-snapshot.js";
import { LogCorruptError } from "../../log/errors.js";
import { ApprovalGate } from "../approval/approval-gate.js";
import { knownResult } from "../approval/call-outcomes.js";
import type { SessionCompactor } from "../compaction/compaction.js";
import { boundText } from "../history/bounded-entry.js";
import type { FreshAdmission, InputQueue } from "../session/input-queue.js";
import { publishEvent } from "../session/publish-event.js";
import type { SessionLogWriter } from "../session/session-log-writer.js";
import type { SessionServices } from "../session/session-services.js";
import { idleStatus } from "../session/session-snapshot.js";
import type { InputRow } from "../storage/inputs-table.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { isStorageUnavailable, storageFailureText } from "../storage/storage-unavailable.js";
import type { TurnRow } from "../storage/turns-table.js";
import type { SessionFeed } from "../stream/session-feed.js";
import { StorageRetry } from "./storage-retry.js";
import { turnConversation } from "./turn-conversation.js";
import { nextLogPosition, turnEndEntries } from "./turn-end-entries.js";
import { endCutTurn } from "./turn-recovery.js";
import { storageFailedEnding, storageUnavailableMessage, type TurnEnding, TurnRun } from "./turn-run.js";
import {
  deliveredInputs,
  receiptsOf,
  type StartedTurn,
  turnStartEntries,
  turnStartWrites,
} from "./turn-start.js";

export { restartNoteText } from "./turn-recovery.js";

/** What the scheduler needs from its actor. */
export interface TurnContext {
  sessionId: string;
  services: SessionServices;
  feed: SessionFeed;
  log: SessionLogWriter;
  inputs: InputQueue;
  /** The session's compactions (no turn starts while one runs). */
  compactor: SessionCompactor;
  /** Run `task` in the actor's mailbox. */
  task<T>(task: () => Promise<T> | T): Promise<T>;
  setStatus(status: SessionStatus): void;
  /** The session's status now. */
  status(): SessionStatus;
  /** The session's row (the turn reads its provider, model and workspace). */
  row(): Promise<SessionRow>;
  /** No new turn may start (the actor is stopping or stopped). */
  halted(): boolean;
  /** An unexpected failure: the actor stops and is replaced. */
  crash(error: unknown): void;
}

export class TurnScheduler {
  readonly #ctx: TurnContext;
  #turn: TurnRun | null = null;
  readonly #gate: ApprovalGate;
  /** Called when the running turn ends or starts to wait for an answer (see `turnSettled`). */
  readonly #settledListeners = new Set<() => void>();
  #starting = false;
  readonly #storageRetry: StorageRetry;
  /** Whether the ending turn's error event has gone out (it goes out once, whatever retries follow). */
  #endingReported = false;

  constructor(context: TurnContext) {
    this.#ctx = context;
    this.#storageRetry = new StorageRetry(() => context.halted());
    this.#gate = new ApprovalGate({
      sessionId: context.sessionId,
      log: context.log,
      feed: context.feed,
      now: () => context.services.now(),
      task: (task) => context.task(task),
      changed: () => this.#approvalsChanged(),
    });
  }

  /** The session's approvals. */
  get gate(): ApprovalGate {
    return this.#gate;
  }

  /** The turn in progress, if any. */
  get turn(): TurnRun | null {
    return this.#turn;
  }

  /** Whether a turn is in progress or starting. */
  get busy(): boolean {
    return this.#turn !== null || this.#starting;
  }

  /**
   * Resolves when no turn runs or the running one waits for an answer: a drain need not wait
   * for a person (the waiting calls are durable, and the next start waits for them again).
   * With `handOff` (another node will recover the turn), also whenever every tool it started
   * has its result committed: cut there, the next owner loses only the model's answer in
   * progress, never a tool's outcome.
   */
  turnSettled(handOff = false): Promise<void> {
    const settled = (): boolean =>
      this.#turn === null || this.#gate.waiting || (handOff && this.#turn.toolsUnsettled === 0);
    if (settled()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!settled()) return;
        this.#settledListeners.delete(check);
        resolve();
      };
      this.#settledListeners.add(check);
    });
  }

  /**
   * Run what waits: recover a turn a crash or a shutdown left `running` (turn-recovery.ts:
   * abandoned and followed by a new turn, or interrupted when its interrupt was acknowledged),
   * or else start a turn for queued inputs. Resolves once that first step is done (or found
   * nothing to do).
   */
  recoverOrKick(): Promise<void> {
    if (this.busy || !this.#mayRunTurns()) return Promise.resolve();
    this.#starting = true;
    return this.#ctx
      .task(async () => {
        try {
          if (!this.#mayRunTurns() || this.#turn !== null) return;
          const { services, sessionId, inputs } = this.#ctx;
          const cut = await services.storage.runningTurnOf(sessionId);
          if (cut !== null) {
            await this.#recoverCutTurn(cut);
            return;
          }
          // Calls that wait with no turn (the actor failed while they waited): a turn waits for them.
          if (this.#gate.waiting) {
            await this.#startTurn([]);
            return;
          }
          const pending = await inputs.pending();
          if (pending.length > 0) await this.#startTurn(pending);
        } finally {
          this.#starting = false;
        }
      })
      .then(
        () => {
          this.#storageRetry.succeeded();
        },
        (error: unknown) => this.#onStartFailure(error),
      );
  }

  /**
   * Inside the mailbox: admit a new input and start its turn in one commit, when the session is
   * idle and nothing else waits (no turn, no inputs, no answers, nothing to recover); the
   * input's pending receipt, or null when this shortcut does not apply (or its write was
   * refused: the input is then not admitted, and the caller admits it the usual way, which
   * answers retries, conflicts and failures as always). Clients see what the two commits showed:
   * the pending receipt first, then the turn's start.
   */
  async admitAndStart(
    inputId: string,
    intent: InputIntent,
    clientId: string | null,
  ): Promise<InputReceipt | null> {
    if (!this.#idleForAdmission()) return null;
    const { inputs } = this.#ctx;
    let admission: FreshAdmission;
    let session: SessionRow;
    try {
      // What else could stop the shortcut (a retry of this input, inputs waiting, a turn left
      // running, another writer's append) is checked inside the commit, which then rolls back.
      session = await this.#ctx.row();
      // The read may have yielded: the session must still be idle.
      if (!this.#idleForAdmission()) return null;
      admission = inputs.prepare(inputId, intent, clientId, session.inputOrder + 1);
    } catch {
      return null;
    }
    this.#starting = true;
    try {
      // The model request needs no durability: the turn starts as soon as its start commit is
      // written and sends while the commit's fsync runs; what it publishes waits for durability
      // (a client never hears of a turn a power loss could take back). The commit changed none
      // of the row's settings the turn reads.
      let launched: TurnRun | null = null;
      const started = await this.#commitTurnStart([admission.row], admission, (written) => {
        launched = this.#launch(written, session, true);
      });
      if (started === null) {
        // Refused, or written but never durable: a turn launched for it stops unheard.
        this.#dropLaunched(launched);
        return null;
      }
      try {
        await this.#runTurn(started, session, launched ?? undefined);
        this.#storageRetry.succeeded();
      } catch (error) {
        // The input is admitted and its turn's start is durable: what failed after is a start
        // failure, as for a turn started from the queue.
        this.#onStartFailure(error);
      }
      return admission.receipt;
    } finally {
      this.#starting = false;
    }
  }

  /** Start a turn if the session is idle and inputs wait (after admissions, turn ends and loads). */
  kick(): void {
    void this.recoverOrKick();
  }

  /**
   * Stop the running turn on a user's request (its end is logged `interrupted`); the turn
   * stopped, or null when none runs. The caller makes the request durable
   * (`recordInterrupt`) before acknowledging it.
   */
  requestInterrupt(): TurnRun | null {
    const turn = this.#turn;
    if (turn === null || turn.interruptRequested) return turn;
    turn.abort("interrupted");
    this.#ctx.setStatus({ ...this.#ctx.status(), interrupt_requested: true });
    return turn;
  }

  /**
   * Inside the mailbox: make an interrupt of turn `turnId` durable (a mark on its row, through
   * the group commit and the cluster's fence), so that a crash before the turn's end is logged
   * still ends it interrupted at the next start. Resolves once durable.
   */
  async recordInterrupt(turnId: string): Promise<void> {
    const { services, sessionId } = this.#ctx;
    await services.storage.writeRows(sessionId, { interruptRequested: { id: turnId, at: services.now() } });
  }

  /** The log was found corrupt: the running turn stops (nothing more can be logged). */
  corrupted(): void {
    this.#turn?.abort("corrupt");
  }

  /** The actor stops: abort the running turn (`shutdown` leaves it `running` for the next start to recover). */
  abortFor(reason: "crashed" | "shutdown"): TurnRun | null {
    this.#turn?.abort(reason);
    return this.#turn;
  }

  /** The actor crashed: end the turn `failed` if storage allows and tell the clients. */
  async failOnCrash(error: unknown): Promise<void> {
    const turn = this.#turn;
    if (turn === null) return;
    turn.abort("crashed");
    this.#turn = null;
    this.#gate.turnEnded();
    this.#notifySettled();
    publishEvent(this.#ctx.feed, "error", {
      run_id: turn.id,
      code: "session_error",
      message: "the session actor failed and was restarted; see the daemon log",
    });
    try {
      const detail = error instanceof Error ? error.message : String(error);
      await this.#ctx.services.storage.failTurn(
        this.#ctx.sessionId,
        turn.id,
        this.#ctx.services.now(),
        detail,
      );
    } catch {
      // Storage is what failed: the turn stays `running` and the next start recovers it.
    }
  }

  /** The actor is gone: no more retries. */
  dispose(): void {
    this.#storageRetry.dispose();
  }

  // ---------------------------------------------------------------------------------------------

  /** Nothing forbids running turns (stopping, a corrupt log, a storage retry pending, a drain). */
  #mayRunTurns(): boolean {
    return (
      !this.#ctx.halted() &&
      this.#ctx.log.corrupt === null &&
      !this.#storageRetry.pending &&
      !this.#ctx.compactor.running &&
      !this.#ctx.services.isDraining()
    );
  }

  /**
   * Inside the mailbox: a turn a crash cut short ends (turn-recovery.ts): abandoned, then a new
   * turn goes on with it; or interrupted (its interrupt was acknowledged), then only queued
   * inputs start a turn.
   */
  async #recoverCutTurn(turn: TurnRow): Promise<void> {
    const { inputs } = this.#ctx;
    const session = await this.#ctx.row();
    const recovery = await endCutTurn(this.#ctx, turn, session.workspace);
    this.#gate.announce(recovery.entries);
    if (recovery.continues) {
      await this.#startTurn([]);
      return;
    }
    const pending = await inputs.pending();
    if (pending.length > 0) await this.#startTurn(pending);
  }

  /** No turn runs, starts or may be owed (answers waiting, a storage retry, a drain): a new input may start one. */
  #idleForAdmission(): boolean {
    return !this.busy && !this.#gate.waiting && !this.#ctx.log.holding && this.#mayRunTurns();
  }

  /** Inside the mailbox: commit the turn's inputs with the turn row, then run the model. */
  async #startTurn(pending: readonly InputRow[]): Promise<void> {
    const started = await this.#commitTurnStart(pending);
    if (started !== null) await this.#runTurn(started);
  }

  /**
   * Inside the mailbox: commit a turn's start (its inputs' entries, the turn row, the inputs
   * marked committed; with `admission`, the input's admission first). Null when the admission
   * was refused (nothing was written).
   */
  async #commitTurnStart(
    pending: readonly InputRow[],
    admission?: FreshAdmission,
    written?: (started: StartedTurn) => void,
  ): Promise<StartedTurn | null> {
    const { log, services, inputs } = this.#ctx;
    const turnId = uuidv7();
    const now = services.now();
    const entries = turnStartEntries({ turnId, now, pending, gate: this.#gate, history: log.state.history });
    const inputIds = pending.map((input) => input.id);
    const delivered = deliveredInputs(pending, entries, log.placed(entries));
    const started: StartedTurn = { turnId, inputIds, entries, startedAt: now, delivered };
    const first = log.placed(entries)[0];
    if (first !== undefined) started.firstPosition = first.position;
    const writes = turnStartWrites(started);
    if (admission === undefined) {
      await log.commit(entries, writes);
    } else {
      try {
        // The pending receipt goes out before the entries' events, as if admitted on its own.
        await log.commit(
          entries,
          { admission: admission.writes, ...writes },
          {
            ...(written === undefined ? {} : { written: () => written(started) }),
            durable: () => inputs.announce(admission.receipt),
          },
        );
      } catch {
        // Refused (a retry, another session's id, a failure, a log found changed): nothing of
        // it was written, and the usual admission answers as it would have.
        return null;
      }
    }
    return started;
  }

  /**
   * Inside the mailbox: a turn's start is durable; tell the clients and run the model with the
   * session's settings (`session`: its row as the caller read it, unread otherwise), or let the
   * turn `launched` before its start was durable publish from now on.
   */
  async #runTurn(started: StartedTurn, session?: SessionRow, launched?: TurnRun): Promise<void> {
    const { inputs } = this.#ctx;
    const { turnId, entries } = started;
    this.#gate.announce(entries);
    // Built from what the start committed: reading the receipts back would give the same.
    inputs.publishReceipts(receiptsOf(started, "running", null));
    this.#endingReported = false;
    this.#ctx.setStatus({
      phase: this.#gate.waiting ? "waiting" : "running",
      run_id: turnId,
      interrupt_requested: false,
      blocking_reason: null,
    });
    if (launched === undefined) this.#launch(started, session ?? (await this.#ctx.row()), false);
    else launched.release();
  }

  /** Create and start the turn's run (`held`: its start is not yet durable, see `TurnRun.release`). */
  #launch(started: StartedTurn, session: SessionRow, held: boolean): TurnRun {
    const { log, services, feed } = this.#ctx;
    const { turnId, inputIds } = started;
    const turn = new TurnRun({
      id: turnId,
      inputIds,
      services,
      session,
      state: log.state,
      conversation: turnConversation(this.#ctx, this.#gate, turnId, () => turn),
      feed,
      gate: this.#gate,
      held,
      onToolsChanged: () => this.#notifySettled(),
      compaction: (bound, prompt, tools) => this.#ctx.compactor.forTurn(turnId, bound, prompt, tools),
    });
    this.#turn = turn;
    turn.start().then(
      (ending) =>
        this.#ctx
          .task(() => this.#endTurn(turn, started, ending))
          .catch((error: unknown) => this.#ctx.crash(error)),
      (error: unknown) => this.#ctx.crash(error),
    );
    return turn;
  }

  /**
   * A turn launched for a start that never became durable: it stops without a word (its end is
   * not written either: `#endTurn` ignores a turn that is no longer the session's).
   */
  #dropLaunched(launched: TurnRun | null): void {
    if (launched === null) return;
    if (this.#turn === launched) this.#turn = null;
    launched.abort("storage");
  }

  /**
   * Inside the mailbox: close open calls if needed, log the turn's end, end the turn row. When
   * storage refuses the write, clients hear about it at once and the end is written again
   * later (the mailbox stays free meanwhile, so snapshots and streams keep working).
   */
  async #endTurn(turn: TurnRun, started: StartedTurn, ending: TurnEnding): Promise<void> {
    if (this.#turn !== turn) return;
    const { log, services, feed } = this.#ctx;
    if (!this.#endingReported && ending.error !== undefined) {
      this.#endingReported = true;
      publishEvent(feed, "error", {
        run_id: turn.id,
        code: ending.error.code,
        // A provider's error text is its own; an event carries at most its start.
        message: boundText(ending.error.message).text,
      });
    }
    if (log.corrupt !== null) {
      // Nothing more is written to a log that fails verification; the turn ends in memory only.
      await this.#finish(turn, "failed", "error");
      return;
    }
    const now = services.now();
    const workspace = turn.policy?.workspace ?? null;
    const entries = turnEndEntries({
      turnId: turn.id,
      ending,
      now,
      gate: this.#gate,
      history: log.state.history,
      known: (call) => knownResult(call, log.state.approval_decisions, workspace),
      ...(started.firstPosition === undefined
        ? {}
        : { firstPosition: started.firstPosition, nextPosition: nextLogPosition(log, now) }),
    });
    try {
      await log.commit(entries, {
        endTurn: { id: turn.id, state: ending.state, endedAt: now, error: ending.error?.message ?? null },
        usage: ending.usage,
      });
    } catch (error) {
      if (log.corrupt !== null) {
        await this.#finish(turn, "failed", "error");
        return;
      }
      if (!isStorageUnavailable(error)) throw error;
      // The turn's last answer could not be written: as for any step, the turn failed and the
      // answer is not logged (its request is not counted); what is retried is a failed end.
      const failed =
        log.dropHeld() && ending.state === "completed"
          ? storageFailedEnding(ending.requestCount - 1, ending.usage, storageFailureText(error))
          : ending;
      this.#holdTurnEnd(turn, started, failed, error);
      return;
    }
    this.#storageRetry.succeeded();
    // The turn's end sets the status itself.
    this.#gate.announce(entries, { statusChange: false });
    await this.#finish(turn, ending.state, ending.outcome.type, { started, endedAt: now });
  }

  /** The turn's end could not be written: say so once, show it in the status, and try again later. */
  #holdTurnEnd(turn: TurnRun, started: StartedTurn, ending: TurnEnding, error: unknown): void {
    const { services, sessionId, feed } = this.#ctx;
    const detail = storageFailureText(error);
    services.logger.warn({ session: sessionId, turn: turn.id, err: error }, "could not log a turn's end");
    if (!this.#endingReported) {
      this.#endingReported = true;
      publishEvent(feed, "error", {
        run_id: turn.id,
        code: "storage_unavailable",
        message: storageUnavailableMessage(detail),
      });
    }
    this.#ctx.setStatus({ ...this.#ctx.status(), blocking_reason: { code: "storage_unavailable", detail } });
    this.#storageRetry.schedule(() => {
      this.#ctx
        .task(() => this.#endTurn(turn, started, ending))
        .catch((failure: unknown) => this.#ctx.crash(failure));
    });
  }

  /**
   * The turn is over (logged, or given up on a corrupt log): tell the clients and let the queue
   * run. `logged`: how the turn started and when its end was logged, when it was.
   */
  async #finish(
    turn: TurnRun,
    state: TurnEnding["state"],
    outcome: TurnEnding["outcome"]["type"],
    logged?: { started: StartedTurn; endedAt: number },
  ): Promise<void> {
    const { feed, inputs, log } = this.#ctx;
    this.#turn = null;
    this.#gate.turnEnded();
    this.#notifySettled();
    if (logged !== undefined) {
      // The end just committed says what a read would: the turn ended `state` at `endedAt`.
      inputs.publishReceipts(receiptsOf(logged.started, state, logged.endedAt));
    } else {
      // Not logged (a corrupt log): the stored receipts still show the turn running.
      await inputs.publish(turn.inputIds);
    }
    publishEvent(feed, "turn_completed", { run_id: turn.id, state, input_ids: [...turn.inputIds], outcome });
    const corrupt = log.corrupt;
    this.#ctx.setStatus(
      corrupt === null
        ? idleStatus
        : { ...idleStatus, blocking_reason: { code: "log_corrupt", detail: corrupt.message } },
    );
    if (!this.#ctx.halted()) queueMicrotask(() => this.kick());
  }

  /** Calls started or stopped waiting: the running turn's phase follows. */
  #approvalsChanged(): void {
    const status = this.#ctx.status();
    if (this.#turn !== null && status.phase !== "idle") {
      const phase = this.#gate.waiting ? "waiting" : "running";
      if (status.phase !== phase) this.#ctx.setStatus({ ...status, phase });
    }
    this.#notifySettled();
  }

  #notifySettled(): void {
    for (const listener of [...this.#settledListeners]) listener();
  }

  /** Starting (or recovering) a turn failed: storage trouble is retried later, anything else is a crash. */
  #onStartFailure(error: unknown): void {
    const { services, sessionId, log } = this.#ctx;
    if (this.#ctx.halted()) return;
    if (error instanceof LogCorruptError || log.corrupt !== null) {
      if (error instanceof LogCorruptError) log.markCorrupt(error);
      return;
    }
    if (!isStorageUnavailable(error)) {
      this.#ctx.crash(error);
      return;
    }
    services.logger.warn(
      { session: sessionId, err: error },
      "could not start a turn: storage unavailable; will retry",
    );
    this.#storageRetry.schedule(() => this.kick());
  }
}
