/**
 * What a waiting `task` call hears of its child in this daemon: every event a session publishes
 * passes `observe` (the daemon's session event observer), which wakes the calls waiting on that
 * session and relays a child's `approval_requested` to its parent's stream with the child's
 * `session_id`. A child another node runs publishes nothing here: on a cluster that node
 * announces its turn ends (cluster/task-wake-ups.ts, calling `wake`), and the waiting call also
 * looks at the database on a bounded poll (task-run.ts), so no wake-up can be missed, only be late.
 *
 * Boundary rule: in memory only; it never reads storage.
 */
import type { SessionEventData } from "../../api/session-events.js";
import type { EventPublisher } from "../session/session-services.js";

/** Events of a child after which its input's state may have changed. */
const wakingEvents: ReadonlySet<string> = new Set(["turn_completed", "input", "status"]);

export class TaskHub {
  readonly #wakers = new Map<string, Set<() => void>>();
  readonly #relays = new Map<string, EventPublisher>();

  /** One event of a session (cheap: a map lookup for sessions nobody waits on). */
  observe<T extends keyof SessionEventData>(sessionId: string, type: T, data: SessionEventData[T]): void {
    if (type === "approval_requested") {
      const relay = this.#relays.get(sessionId);
      const request = data as SessionEventData["approval_requested"];
      relay?.("approval_requested", { ...request, session_id: request.session_id ?? sessionId });
      return;
    }
    if (wakingEvents.has(type)) this.wake(sessionId);
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

  /** Relay the approval requests of `childId` to its parent's stream until the returned function is called. */
  relayApprovals(childId: string, publish: EventPublisher): () => void {
    this.#relays.set(childId, publish);
    return () => {
      if (this.#relays.get(childId) === publish) this.#relays.delete(childId);
    };
  }
}
