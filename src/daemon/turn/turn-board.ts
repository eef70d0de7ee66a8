/**
 * What a session's turns share: the running turn, the session's status (its clients hear of
 * each change, and so does the actor's supervisor), and who waits for the running turn to
 * settle (a drain). The status's phase follows the approvals: a running turn whose calls wait
 * for an answer is "waiting".
 *
 * Boundary rule: state only; the scheduler (turn-scheduler.ts) and each turn (turn.ts) change it.
 */
import type { SessionStatus } from "../../api/session-snapshot.js";
import type { SessionPort } from "../session/session-port.js";
import { idleStatus, sameStatus } from "../session/session-snapshot.js";
import type { TurnRun } from "./turn-run.js";

export class TurnBoard {
  readonly #port: SessionPort;
  readonly #statusChanged: (status: SessionStatus) => void;
  #running: TurnRun | null = null;
  #status: SessionStatus = idleStatus;
  /** The running turn's end is being committed: its closing entries do not move its phase. */
  #ending = false;
  /** Called when the running turn ends, starts to wait for an answer, or settles a tool. */
  readonly #settledListeners = new Set<() => void>();

  /** The board of the session behind `port`; `statusChanged` hears of every status change after its clients. */
  constructor(port: SessionPort, statusChanged: (status: SessionStatus) => void) {
    this.#port = port;
    this.#statusChanged = statusChanged;
  }

  /** The run of the turn in progress, if any. */
  get running(): TurnRun | null {
    return this.#running;
  }

  /** A turn's run starts (its start is written), or the running one is over (null). */
  set running(run: TurnRun | null) {
    this.#running = run;
    if (run === null) this.notifySettled();
  }

  get status(): SessionStatus {
    return this.#status;
  }

  /** The status changes: clients hear of it only when it differs (a storage retry that fails again sets the same). */
  setStatus(status: SessionStatus): void {
    if (sameStatus(this.#status, status)) return;
    this.#status = status;
    this.#port.publish("status", {
      phase: status.phase,
      run_id: status.run_id,
      interrupt_requested: status.interrupt_requested,
      blocking_reason: status.blocking_reason === null ? null : { ...status.blocking_reason },
    });
    this.#statusChanged(status);
  }

  /** Commit the running turn's end with `commit`; meanwhile its phase stays as it is. */
  async ending<T>(commit: () => Promise<T>): Promise<T> {
    this.#ending = true;
    try {
      return await commit();
    } finally {
      this.#ending = false;
    }
  }

  /** After a commit: the running turn's phase follows whether its calls wait for an answer (`waiting`). */
  followApprovals(waiting: boolean): void {
    const status = this.#status;
    if (this.#running !== null && !this.#ending && status.phase !== "idle") {
      const phase = waiting ? "waiting" : "running";
      if (status.phase !== phase) this.setStatus({ ...status, phase });
    }
    this.notifySettled();
  }

  /** Resolves once `settled()` holds, checked now and at every change of the running turn. */
  whenSettled(settled: () => boolean): Promise<void> {
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

  /** The running turn changed in a way a waiter of `whenSettled` may care about. */
  notifySettled(): void {
    for (const listener of [...this.#settledListeners]) listener();
  }
}
