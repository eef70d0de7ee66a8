/**
 * A session's turns: when one starts (the session is idle and inputs wait), interrupts, and
 * recovery of a turn a crash or a shutdown cut short. A new input of an idle session is admitted
 * in its turn's start commit, and a turn's last model answer (no tool calls) is held and
 * committed with its end: a plain turn costs two commits, and enters the mailbox twice (its
 * start, its end). A storage failure at either end is held and retried, never a crash. A turn
 * whose calls wait for an answer keeps running (phase "waiting"); ending it denies what waits; a
 * turn cut short while calls waited is followed by a turn that waits for the same calls again
 * (nothing of their batch had started), unless its interrupt was acknowledged
 * (`recordInterrupt`): then it ends interrupted.
 *
 * One turn, top to bottom, is turn.ts; what its start and end commit is built in turn-start.ts
 * and turn-end.ts, a turn cut short is ended in turn-recovery.ts, and storage retries wait in
 * storage-retry.ts. The running turn and the session's status are on the board (turn-board.ts).
 *
 * Boundary rule: everything it writes runs in the session's mailbox (`SessionPort.serialize`).
 */
import type { CancelAnswer, InputIntent, InputReceipt, InterruptAnswer } from "../../api/inputs.js";
import type { SessionStatus, SessionUsage } from "../../api/session-snapshot.js";
import { LogCorruptError } from "../../log/errors.js";
import type { FreshAdmission } from "../session/input-queue.js";
import type { SessionPort } from "../session/session-port.js";
import { requiredRow } from "../session/session-row.js";
import type { SessionServices } from "../session/session-services.js";
import type { InputRow, InputSource } from "../storage/inputs-table.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { isStorageUnavailable } from "../storage/storage-unavailable.js";
import type { TurnRow } from "../storage/turns-table.js";
import type { TurnTrace } from "../telemetry/turn-trace.js";
import { StorageRetry } from "./storage-retry.js";
import { Turn, type TurnCrew } from "./turn.js";
import { TurnBoard } from "./turn-board.js";
import type { TurnParts, TurnSupervisor } from "./turn-parts.js";
import { endCutTurn } from "./turn-recovery.js";
import type { TurnRun } from "./turn-run.js";
import type { StartedTurn } from "./turn-start.js";

export class TurnScheduler {
  readonly #port: SessionPort;
  readonly #services: SessionServices;
  readonly #parts: TurnParts;
  readonly #supervisor: TurnSupervisor;
  readonly #board: TurnBoard;
  readonly #storageRetry: StorageRetry;
  /** What every turn is run with, built once. */
  readonly #crew: TurnCrew;
  #starting = false;

  constructor(port: SessionPort, services: SessionServices, parts: TurnParts, supervisor: TurnSupervisor) {
    this.#port = port;
    this.#services = services;
    this.#parts = parts;
    this.#supervisor = supervisor;
    this.#board = new TurnBoard(port, (status) => supervisor.statusChanged(status));
    this.#storageRetry = new StorageRetry(() => supervisor.halted());
    this.#crew = {
      port,
      services,
      parts,
      board: this.#board,
      retry: this.#storageRetry,
      supervisor,
      next: () => this.#next(),
    };
    // After each commit (the gate, observing first, has told of its approval entries).
    port.log.observe({
      committed: () => this.#board.followApprovals(parts.gate.waiting),
      corrupted: () => this.#board.running?.abort("corrupt"),
    });
  }

  /** The run of the turn in progress, if any. */
  get turn(): TurnRun | null {
    return this.#board.running;
  }

  /**
   * The usage the running turn has streamed and not yet stored (its end stores it, in the same
   * mailbox task that ends the turn here), or null: a snapshot adds it to the stored totals.
   */
  get unstoredUsage(): SessionUsage | null {
    return this.#board.running?.streamedUsage ?? null;
  }

  /** Whether a turn is in progress or starting. */
  get busy(): boolean {
    return this.#board.running !== null || this.#starting;
  }

  /** The session's status: its running turn's phase, and what blocks it. */
  get status(): SessionStatus {
    return this.#board.status;
  }

  /**
   * Resolves when no turn runs or the running one waits for an answer: a drain need not wait
   * for a person (the waiting calls are durable, and the next start waits for them again).
   * With `handOff` (another node will recover the turn), also whenever every tool it started
   * has its result committed: cut there, the next owner loses only the model's answer in
   * progress, never a tool's outcome.
   */
  turnSettled(handOff = false): Promise<void> {
    return this.#board.whenSettled(() => {
      const turn = this.#board.running;
      return turn === null || this.#parts.gate.waiting || (handOff && turn.toolsUnsettled === 0);
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
    const { inputs, gate } = this.#parts;
    return this.#port
      .serialize(async () => {
        try {
          if (!this.#mayRunTurns() || this.#board.running !== null) return;
          const cut = await this.#services.storage.runningTurnOf(this.#port.sessionId);
          if (cut !== null) {
            await this.#recoverCutTurn(cut);
            return;
          }
          // Calls that wait with no turn (the actor failed while they waited): a turn waits for them.
          if (gate.waiting) {
            await this.#begin([], await this.#row());
            return;
          }
          const pending = await inputs.pending();
          if (pending.length > 0) await this.#begin(pending, await this.#row());
        } finally {
          this.#starting = false;
        }
      })
      .then(
        () => this.#storageRetry.succeeded(),
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
    source: InputSource,
  ): Promise<InputReceipt | null> {
    if (!this.#idleForAdmission()) return null;
    let admission: FreshAdmission;
    let session: SessionRow;
    try {
      // What else could stop the shortcut (a retry of this input, inputs waiting, a turn left
      // running, another writer's append) is checked inside the commit, which then rolls back.
      session = await this.#row();
      // The read may have yielded: the session must still be idle.
      if (!this.#idleForAdmission()) return null;
      admission = this.#parts.inputs.prepare(inputId, intent, source, session.inputOrder + 1);
    } catch {
      return null;
    }
    this.#starting = true;
    try {
      if ((await this.#begin([admission.row], session, admission)) === null) return null;
      this.#storageRetry.succeeded();
    } catch (error) {
      // The input is admitted and its turn's start is durable: what failed after is a start
      // failure, as for a turn started from the queue.
      this.#onStartFailure(error);
    } finally {
      this.#starting = false;
    }
    return admission.receipt;
  }

  /**
   * A session just created with its first turn started in its creation's commit (`started`):
   * run that turn, before anything else enters the mailbox.
   */
  runCommitted(started: StartedTurn, session: SessionRow, trace: TurnTrace | undefined): void {
    Turn.committed(this.#crew, started, session, trace);
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
    const turn = this.#board.running;
    if (turn === null || turn.interruptRequested) return turn;
    turn.abort("interrupted");
    this.#board.setStatus({ ...this.#board.status, interrupt_requested: true });
    return turn;
  }

  /**
   * Inside the mailbox, after `requestInterrupt` stopped the turn `stopped` (null: none was
   * `turnId`): cancel queued inputs through `throughOrder` and make the interrupt durable (a mark
   * on the turn's row, through the group commit and the cluster's fence; one group commit for
   * both), so that a crash before the turn's end is logged still ends it interrupted.
   */
  async recordInterrupt(
    turnId: string | null,
    stopped: TurnRun | null,
    throughOrder: number,
  ): Promise<InterruptAnswer> {
    const [, cancelled] = await Promise.all([
      stopped === null ? undefined : this.#markInterrupted(stopped.id),
      this.#parts.inputs.cancelThrough(throughOrder),
    ]);
    return {
      run_id: turnId,
      state: stopped === null ? "already_ended" : "requested",
      cancelled_input_ids: cancelled,
    };
  }

  /** Inside the mailbox: cancel one input, dropping it from the queue or interrupting the turn it alone belongs to. */
  async cancelInput(inputId: string): Promise<CancelAnswer> {
    const { inputs } = this.#parts;
    const result = await inputs.cancel(inputId);
    if (result === "cancelled") return { result, input: await inputs.receipt(inputId) };
    const turn = this.#board.running;
    if (turn !== null && turn.inputIds.length === 1 && turn.inputIds[0] === inputId) {
      this.requestInterrupt();
      await this.#markInterrupted(turn.id);
      return { result: "interrupt_requested", input: await inputs.receipt(inputId) };
    }
    return { result: "not_pending", input: await inputs.receipt(inputId) };
  }

  /** The actor stops: abort the running turn (`shutdown` leaves it `running` for the next start to recover). */
  abortFor(reason: "crashed" | "shutdown"): TurnRun | null {
    const turn = this.#board.running;
    turn?.abort(reason);
    return turn;
  }

  /** The actor crashed: end the turn `failed` if storage allows and tell the clients. */
  async failOnCrash(error: unknown): Promise<void> {
    const turn = this.#board.running;
    if (turn === null) return;
    turn.abort("crashed");
    this.#board.running = null;
    this.#port.publish("error", {
      run_id: turn.id,
      code: "session_error",
      message: "the session actor failed and was restarted; see the daemon log",
    });
    try {
      const detail = error instanceof Error ? error.message : String(error);
      await this.#services.storage.failTurn(this.#port.sessionId, turn.id, this.#port.now(), detail);
    } catch {
      // Storage is what failed: the turn stays `running` and the next start recovers it.
    }
  }

  /** The actor is gone: no more retries. */
  dispose(): void {
    this.#storageRetry.dispose();
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Inside the mailbox, right after a turn's end: start a turn for the inputs that wait, if any
   * (in the same task: a turn needs no extra mailbox entry to find the queue empty).
   */
  async #next(): Promise<void> {
    if (this.busy || !this.#mayRunTurns()) return;
    this.#starting = true;
    try {
      const pending = await this.#parts.inputs.pending();
      if (pending.length > 0) await this.#begin(pending, await this.#row());
      this.#storageRetry.succeeded();
    } catch (error) {
      this.#onStartFailure(error);
    } finally {
      this.#starting = false;
    }
  }

  /** The durable mark of an interrupt of turn `turnId` (see `recordInterrupt`). */
  async #markInterrupted(turnId: string): Promise<void> {
    await this.#services.storage.writeRows(this.#port.sessionId, {
      interruptRequested: { id: turnId, at: this.#port.now() },
    });
  }

  /** Inside the mailbox: start a turn (turn.ts); null when an admission's commit was refused. */
  #begin(
    pending: readonly InputRow[],
    session: SessionRow,
    admission?: FreshAdmission,
  ): Promise<Turn | null> {
    return Turn.begin(this.#crew, pending, session, admission);
  }

  /**
   * Inside the mailbox: a turn a crash cut short ends (turn-recovery.ts): abandoned, then a new
   * turn goes on with it; or interrupted (its interrupt was acknowledged), then only queued
   * inputs start a turn.
   */
  async #recoverCutTurn(turn: TurnRow): Promise<void> {
    const session = await this.#row();
    const { onUnknownOutcome } = this.#services.turnSettings(session);
    const recovery = await endCutTurn(
      this.#port,
      this.#parts.inputs,
      turn,
      session.workspace,
      onUnknownOutcome,
    );
    if (recovery.continues) {
      await this.#begin([], session);
      return;
    }
    const pending = await this.#parts.inputs.pending();
    if (pending.length > 0) await this.#begin(pending, session);
  }

  /** Nothing forbids running turns (stopping, a corrupt log, a storage retry pending, a drain). */
  #mayRunTurns(): boolean {
    return (
      !this.#supervisor.halted() &&
      this.#port.log.corrupt === null &&
      !this.#storageRetry.pending &&
      !this.#parts.compactor.running &&
      !this.#services.isDraining()
    );
  }

  /** No turn runs, starts or may be owed (answers waiting, a storage retry, a drain): a new input may start one. */
  #idleForAdmission(): boolean {
    return !this.busy && !this.#parts.gate.waiting && !this.#port.log.holding && this.#mayRunTurns();
  }

  /** The session's row (a turn reads its provider, model and workspace). */
  #row(): Promise<SessionRow> {
    return requiredRow(this.#services.storage, this.#port.sessionId);
  }

  /** Starting (or recovering) a turn failed: storage trouble is retried later, anything else is a crash. */
  #onStartFailure(error: unknown): void {
    const { log, sessionId, logger } = this.#port;
    if (this.#supervisor.halted()) return;
    if (error instanceof LogCorruptError || log.corrupt !== null) {
      if (error instanceof LogCorruptError) log.markCorrupt(error);
      return;
    }
    if (!isStorageUnavailable(error)) {
      this.#supervisor.crash(error);
      return;
    }
    logger.warn(
      { session_id: sessionId, err: error },
      "could not start a turn: storage unavailable; will retry",
    );
    this.#storageRetry.schedule(() => this.kick());
  }
}
