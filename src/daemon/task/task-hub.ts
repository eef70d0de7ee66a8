/**
 * What a waiting `task` call hears of its child in this daemon: every event a session publishes
 * passes `observe` (the daemon's session event observer), which wakes the calls waiting on that
 * session and hands a child's `approval_requested` and `approval_resolved` to the call's relay
 * (approval-relay.ts), which tells the parent's stream. A child another node runs publishes
 * nothing here: on a cluster that node announces its turn ends and approval changes
 * (cluster/task-wake-ups.ts, calling `wake` and `approvalsChanged`), and the waiting call also
 * looks at the database on a bounded poll (task-run.ts), so no wake-up can be missed, only be late.
 *
 * Boundary rule: in memory only; it never reads storage.
 */
import type { SessionEventData } from "../../api/session-events.js";
import type { ApprovalRelay } from "./approval-relay.js";

/** Events of a child after which its input's state may have changed. */
const wakingEvents: ReadonlySet<string> = new Set(["turn_completed", "input", "status"]);

export class TaskHub {
  readonly #wakers = new Map<string, Set<() => void>>();
  readonly #relays = new Map<string, ApprovalRelay>();

  /** One event of a session (cheap: a map lookup for sessions nobody waits on). */
  observe<T extends keyof SessionEventData>(sessionId: string, type: T, data: SessionEventData[T]): void {
    if (type === "approval_requested") {
      this.#relays.get(sessionId)?.requested(data as SessionEventData["approval_requested"]);
      return;
    }
    if (type === "approval_resolved") {
      this.#relays.get(sessionId)?.resolved(data as SessionEventData["approval_resolved"]);
      return;
    }
    if (wakingEvents.has(type)) this.wake(sessionId);
  }

  /** Another node announced that `sessionId`'s approvals changed: the call waiting on it catches up. */
  approvalsChanged(sessionId: string): void {
    void this.#relays.get(sessionId)?.catchUp();
  }

  /** Wake the calls waiting on `sessionId` now (an event here, or another node announced its turn end). */
  wake(sessionId: string): void {
    const wakers = this.#wakers.get(sessionId);
    if (wakers === undefined) return;
    this.#wakers.delete(sessionId);
    for (const wake of wakers) wake();
  }

  /**
   * A promise that settles at the child's next waking event, or after `timeoutMs`, or when
   * `signal` aborts; take it before looking at the child's state, so an event between the look
   * and the wait is not lost.
   */
  nextChange(sessionId: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#wakers.get(sessionId)?.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener("abort", done, { once: true });
      const wakers = this.#wakers.get(sessionId) ?? new Set();
      wakers.add(done);
      this.#wakers.set(sessionId, wakers);
    });
  }

  /** Relay the approvals of `childId` through `relay` until the returned function is called. */
  relayApprovals(childId: string, relay: ApprovalRelay): () => void {
    this.#relays.set(childId, relay);
    return () => {
      if (this.#relays.get(childId) === relay) this.#relays.delete(childId);
    };
  }
}
