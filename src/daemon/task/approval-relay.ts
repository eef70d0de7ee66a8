/**
 * One waiting `task` call's relay of its child's approvals to the parent's stream: each request
 * the child logs is published there as `approval_requested`, and each answer as
 * `approval_resolved`, both with the child's `session_id`, so whoever watches the parent can
 * answer the call (at the child's route) and drop it once answered, by anyone.
 *
 * Two ways in. A child on this node publishes its events here (`requested`, `resolved`, from
 * the task hub). A child on another node publishes nothing here: its node announces that its
 * approvals changed (cluster/task-wake-ups.ts) and `catchUp` reads them (from the child's log,
 * task-run.ts) and publishes the difference from what was relayed; the call's start does the
 * same, so a parent's new stream (a restart, a takeover) hears of calls that already wait.
 *
 * Boundary rule: remembers only what it relayed; reading the child's log is the caller's.
 */
import type { ApprovalRecord, PendingApproval } from "../../api/approvals.js";
import type { SessionEventData } from "../../api/session-events.js";
import type { EventPublisher } from "../session/session-services.js";

/** A child's approvals as its log has them now. */
export interface ChildApprovals {
  /** The calls that wait, oldest first. */
  pending: readonly PendingApproval[];
  /** The recorded answers, by call id. */
  decisions: Readonly<Record<string, ApprovalRecord>>;
}

/** Reads of the log that are retried when an event of the child arrives meanwhile. */
const maxCatchUpReads = 3;

export class ApprovalRelay {
  readonly #childId: string;
  readonly #publish: EventPublisher;
  readonly #read: () => Promise<ChildApprovals | null>;
  /** The relayed requests not yet answered: run id by `<session id> <call id>`. */
  readonly #waiting = new Map<string, string | null>();
  /** Events heard from this node's child (a read older than the latest is read again). */
  #heard = 0;
  #catchingUp: Promise<void> = Promise.resolve();

  /** Relay `childId`'s approvals through `publish`; `read` gives them from the child's log (null: gone). */
  constructor(childId: string, publish: EventPublisher, read: () => Promise<ChildApprovals | null>) {
    this.#childId = childId;
    this.#publish = publish;
    this.#read = read;
  }

  /** The child (or, relayed by it, one of its own children) asks: tell the parent's stream once. */
  requested(request: SessionEventData["approval_requested"]): void {
    this.#heard++;
    const sessionId = request.session_id ?? this.#childId;
    const key = `${sessionId} ${request.call_id}`;
    if (this.#waiting.has(key)) return;
    this.#waiting.set(key, request.run_id);
    this.#publish("approval_requested", { ...request, session_id: sessionId });
  }

  /** A call of the child was answered: tell the parent's stream, so its watchers drop it. */
  resolved(answer: SessionEventData["approval_resolved"]): void {
    this.#heard++;
    const sessionId = answer.session_id ?? this.#childId;
    this.#waiting.delete(`${sessionId} ${answer.call_id}`);
    this.#publish("approval_resolved", { ...answer, session_id: sessionId });
  }

  /**
   * Read the child's approvals from its log and relay what changed since (one catch-up at a
   * time, in order, so the last one relays the log's latest state).
   */
  catchUp(): Promise<void> {
    const run = this.#catchingUp.then(() => this.#catchUpNow());
    // A failed read leaves the next catch-up its turn (the reader logs why it failed).
    this.#catchingUp = run.catch(() => undefined);
    return run;
  }

  async #catchUpNow(): Promise<void> {
    for (let reads = 0; reads < maxCatchUpReads; reads++) {
      const heard = this.#heard;
      const approvals = await this.#read();
      if (approvals === null) return;
      // An event of the child arrived during the read: the read may predate it, read again.
      if (this.#heard !== heard) continue;
      this.#apply(approvals);
      return;
    }
  }

  #apply({ pending, decisions }: ChildApprovals): void {
    const waitingNow = new Set(pending.map((request) => `${this.#childId} ${request.call_id}`));
    for (const [key, runId] of [...this.#waiting]) {
      const [sessionId, callId] = splitKey(key);
      // Only the child's own calls are in its log (its children's relays come as events).
      if (sessionId !== this.#childId || waitingNow.has(key)) continue;
      const answer = decisions[callId];
      this.#waiting.delete(key);
      if (answer !== undefined) this.resolved({ ...answer, run_id: runId });
    }
    for (const request of pending) this.requested(request);
  }
}

function splitKey(key: string): [string, string] {
  const space = key.indexOf(" ");
  return [key.slice(0, space), key.slice(space + 1)];
}
