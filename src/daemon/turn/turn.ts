/**
 * One turn of a session, top to bottom. `Turn.begin` runs in the mailbox: it commits the turn's
 * start (and, for a new input of an idle session, the input's admission first); as soon as the
 * start is written the turn's run starts and its first model request goes out while the commit
 * is flushed (sending has no side effect, and the turn's first step commits after the start, so
 * its flush covers the start too); what the run would publish is held until the start is durable
 * and announced. The run goes on outside the mailbox (turn-run.ts; each step comes back through
 * the mailbox to be committed, turn-conversation.ts); once it has ended, the turn enters the
 * mailbox once more to commit its end (turn-end.ts), with the answer the run held.
 *
 * Boundary rule: a turn changes the session only through its port (log, publish, mailbox) and
 * the board (the running turn, the status); when a turn starts is the scheduler's.
 */

import { unreachable } from "../../model/unreachable.js";
import { scheduleOfInputs } from "../budget/schedule-attribution.js";
import { TurnBudget } from "../budget/turn-budget.js";
import { boundText } from "../history/bounded-entry.js";
import type { FreshAdmission } from "../session/input-queue.js";
import { turnLogFields } from "../session/log-fields.js";
import type { SessionPort } from "../session/session-port.js";
import type { SessionServices } from "../session/session-services.js";
import { idleStatus } from "../session/session-snapshot.js";
import type { InputRow } from "../storage/inputs-table.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { storageFailureText } from "../storage/storage-unavailable.js";
import type { TurnTrace } from "../telemetry/turn-trace.js";
import { sessionBudgetSource } from "./session-budget-source.js";
import type { StorageRetry } from "./storage-retry.js";
import type { TurnBoard } from "./turn-board.js";
import { turnConversation } from "./turn-conversation.js";
import { commitTurnEnd } from "./turn-end.js";
import { storageUnavailableMessage, type TurnEnding } from "./turn-ending.js";
import type { TurnParts, TurnSupervisor } from "./turn-parts.js";
import { TurnRun } from "./turn-run.js";
import { planTurnStart, receiptsOf, type StartedTurn } from "./turn-start.js";

/** What every turn of a session is run with; the scheduler builds it once. */
export interface TurnCrew {
  port: SessionPort;
  services: SessionServices;
  parts: TurnParts;
  board: TurnBoard;
  /** The retry of a turn's end the storage refused. */
  retry: StorageRetry;
  supervisor: TurnSupervisor;
  /** Inside the mailbox, a turn is over: start the next one if inputs wait. */
  next(): Promise<void>;
}

export class Turn {
  readonly run: TurnRun;
  readonly #crew: TurnCrew;
  readonly #started: StartedTurn;
  /** Whether the turn's error event has gone out (once, whatever retries of its end follow). */
  #endingReported = false;
  /** The code of the turn's error, once reported. */
  #endingCode: string | null = null;
  /** The turn's trace; undefined when the daemon exports no traces. */
  readonly #trace: TurnTrace | undefined;

  /** Its start is written: the run starts now (held until `#announce`). */
  private constructor(
    crew: TurnCrew,
    started: StartedTurn,
    session: SessionRow,
    trace: TurnTrace | undefined,
  ) {
    this.#crew = crew;
    this.#started = started;
    this.#trace = trace;
    const { port, services, parts, board } = crew;
    const { turnId, inputIds } = started;
    const budget = new TurnBudget(
      sessionBudgetSource(
        port,
        services,
        session,
        scheduleOfInputs(started.delivered.map((delivered) => delivered.row)),
      ),
    );
    const run: TurnRun = new TurnRun(port, {
      id: turnId,
      inputIds,
      services,
      session,
      trace,
      budget,
      conversation: turnConversation(port, parts.gate, turnId, () => run, budget),
      gate: parts.gate,
      held: true,
      onToolsChanged: () => board.notifySettled(),
      // A compaction's summary requests are checked and counted like the turn's own requests.
      compaction: (bound, prompt, tools) =>
        parts.compactor.forTurn(turnId, bound, prompt, tools, {
          record: (usage) => budget.usageRecord(usage),
          allowed: async () => (await budget.beforeRequest()).action === "continue",
        }),
    });
    this.run = run;
    board.running = run;
    // The run starts here: its first model request goes out now.
    void this.#endWhenDone(run.start());
  }

  /**
   * Inside the mailbox: start a turn delivering `pending` to the session whose row is
   * `session` (with `admission`, admitting that input in the same commit). Null when an
   * admission's commit was refused, or written but never durable: nothing of it counts, and a
   * run started for it stops without a word. Other failures of the commit are thrown.
   */
  static async begin(
    crew: TurnCrew,
    pending: readonly InputRow[],
    session: SessionRow,
    admission?: FreshAdmission,
  ): Promise<Turn | null> {
    const { port, parts } = crew;
    const { started, entries, writes } = planTurnStart(port.log, parts.gate, pending, port.now());
    // Traced before its start commits, so the start's entries carry the trace too.
    const trace = crew.services.tracing?.turn(port.sessionId, started.turnId, started.inputIds);
    if (trace !== undefined) port.log.trace(started.turnId, trace);
    const commit =
      admission === undefined
        ? port.log.begin(entries, writes)
        : port.log.begin(
            entries,
            { admission: admission.writes, ...writes },
            // The pending receipt goes out before the entries' events, as if admitted on its own.
            { announce: () => parts.inputs.announce(admission.receipt) },
          );
    let turn: Turn | null = null;
    try {
      await commit.written;
      turn = new Turn(crew, started, session, trace);
      await commit.durable;
    } catch (error) {
      if (turn !== null) turn.#drop();
      else endTrace(port, started.turnId, trace, "failed", "error", "storage_unavailable");
      // A refused admission wrote nothing: the usual admission answers as it would have.
      if (admission !== undefined) return null;
      throw error;
    }
    turn.#announce();
    return turn;
  }

  /**
   * Run the first turn of a session just created, whose start its creation committed (durable
   * already; see actor/first-input.ts) traced as `trace`, before anything else enters the new
   * actor's mailbox.
   */
  static committed(
    crew: TurnCrew,
    started: StartedTurn,
    session: SessionRow,
    trace: TurnTrace | undefined,
  ): Turn {
    if (trace !== undefined) crew.port.log.trace(started.turnId, trace);
    const turn = new Turn(crew, started, session, trace);
    turn.#announce();
    return turn;
  }

  /** The start is durable: its receipts and the status go out, then what the run held. */
  #announce(): void {
    const { parts, board } = this.#crew;
    // Built from what the start committed: reading the receipts back would give the same.
    parts.inputs.publishReceipts(receiptsOf(this.#started, "running", null));
    board.setStatus({
      phase: parts.gate.waiting ? "waiting" : "running",
      run_id: this.#started.turnId,
      interrupt_requested: false,
      blocking_reason: null,
    });
    this.run.release();
  }

  /** Its start never became durable: the run stops unheard, and its end is never written. */
  #drop(): void {
    const { board, port } = this.#crew;
    if (board.running === this.run) board.running = null;
    this.run.abort("storage");
    endTrace(port, this.run.id, this.#trace, "failed", "error", "storage_unavailable");
  }

  /** Outside the mailbox: wait for the run to end, then come back to the mailbox once to end the turn. */
  async #endWhenDone(run: Promise<TurnEnding>): Promise<void> {
    const { port, supervisor } = this.#crew;
    let ending: TurnEnding;
    try {
      ending = await run;
    } catch (error) {
      supervisor.crash(error);
      return;
    }
    await port.serialize(() => this.#end(ending)).catch((error: unknown) => supervisor.crash(error));
  }

  /**
   * Inside the mailbox: the turn's end (turn-end.ts). When storage refuses the write, clients
   * hear about it at once and the end is written again later (the mailbox stays free
   * meanwhile, so snapshots and streams keep working).
   */
  async #end(ending: TurnEnding): Promise<void> {
    const { port, parts, board, retry } = this.#crew;
    // A run dropped or failed by a crash is no longer the session's: nothing of it is written.
    if (board.running !== this.run) return;
    if (!this.#endingReported && ending.error !== undefined) {
      this.#endingReported = true;
      this.#endingCode = ending.error.code;
      // A provider's error text is its own; an event carries at most its start.
      port.publish("error", {
        run_id: this.run.id,
        code: ending.error.code,
        message: boundText(ending.error.message).text,
      });
    }
    const end = await board.ending(() => commitTurnEnd(port, parts.gate, this.run, this.#started, ending));
    switch (end.kind) {
      case "logged":
        retry.succeeded();
        await this.#finish(ending.state, ending.outcome.type, end.endedAt);
        return;
      case "corrupt":
        await this.#finish("failed", "error", null);
        return;
      case "refused":
        this.#holdEnd(end.ending, end.error);
        return;
      default:
        unreachable(end, "unknown turn end");
    }
  }

  /** The turn's end could not be written: say so once, show it in the status, and try again later. */
  #holdEnd(ending: TurnEnding, error: unknown): void {
    const { port, board, retry, supervisor } = this.#crew;
    const detail = storageFailureText(error);
    port.logger.warn({ ...turnLogFields(port, this.run.id), err: error }, "could not log a turn's end");
    if (!this.#endingReported) {
      this.#endingReported = true;
      port.publish("error", {
        run_id: this.run.id,
        code: "storage_unavailable",
        message: storageUnavailableMessage(detail),
      });
    }
    board.setStatus({ ...board.status, blocking_reason: { code: "storage_unavailable", detail } });
    retry.schedule(() => {
      port.serialize(() => this.#end(ending)).catch((failure: unknown) => supervisor.crash(failure));
    });
  }

  /**
   * The turn is over (its end logged at `endedAt`, or given up on a corrupt log: null): tell
   * the clients and let the queue run, still in the mailbox.
   */
  async #finish(
    state: TurnEnding["state"],
    outcome: TurnEnding["outcome"]["type"],
    endedAt: number | null,
  ): Promise<void> {
    const { port, parts, board, supervisor } = this.#crew;
    const { id, inputIds } = this.run;
    board.running = null;
    endTrace(port, id, this.#trace, state, outcome, this.#endingCode);
    if (endedAt !== null) {
      // The end just committed says what a read would: the turn ended `state` at `endedAt`.
      parts.inputs.publishReceipts(receiptsOf(this.#started, state, endedAt));
    } else {
      // Not logged (a corrupt log): the stored receipts still show the turn running.
      await parts.inputs.publish(inputIds);
    }
    port.publish("turn_completed", { run_id: id, state, input_ids: [...inputIds], outcome });
    const corrupt = port.log.corrupt;
    board.setStatus(
      corrupt === null
        ? idleStatus
        : { ...idleStatus, blocking_reason: { code: "log_corrupt", detail: corrupt.message } },
    );
    if (!supervisor.halted()) await this.#crew.next();
  }
}

/** The turn's trace ends: with the hash of the log's last entry when its end was logged. */
function endTrace(
  port: SessionPort,
  turnId: string,
  trace: TurnTrace | undefined,
  state: string,
  outcome: string,
  errorCode: string | null,
): void {
  if (trace === undefined) return;
  port.log.untrace(turnId);
  trace.end(state, outcome, errorCode, errorCode === "storage_unavailable" ? null : port.log.headHash);
}
