/**
 * What a session's turns work with besides the session's port: the session's other parts, and
 * what the scheduler tells the actor that owns it.
 */
import type { SessionStatus } from "../../api/session-snapshot.js";
import type { ApprovalGate } from "../approval/approval-gate.js";
import type { SessionCompactor } from "../compaction/compaction.js";
import type { InputQueue } from "../session/input-queue.js";

/** The session's other parts a turn works with. */
export interface TurnParts {
  inputs: InputQueue;
  gate: ApprovalGate;
  /** No turn starts while a compaction runs. */
  compactor: SessionCompactor;
}

/** What the scheduler tells the actor that owns it, and asks of it. */
export interface TurnSupervisor {
  /** No new turn may start: the actor is stopping or stopped. */
  halted(): boolean;
  /** The session's status changed (its clients have heard of it). */
  statusChanged(status: SessionStatus): void;
  /** An unexpected failure: the actor stops and is replaced. */
  crash(error: unknown): void;
}
