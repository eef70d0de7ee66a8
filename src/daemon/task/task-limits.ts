/**
 * How many `task` calls run at once: at most `maxParallelTasks` per session (config.json, read
 * when a call starts) and at most `perDaemon` in this daemon. A call over either limit waits its
 * turn (first come, first served) rather than failing; an aborted wait leaves the queue.
 */

/** A slot held by one running `task` call; `release` gives it back (once). */
export type TaskSlot = () => void;

/** The default per-daemon limit. */
const defaultDaemonTaskLimit = 32;

interface Waiter {
  sessionId: string;
  limit: number;
  grant: (slot: TaskSlot) => void;
}

export class TaskLimits {
  readonly #perDaemon: number;
  readonly #running = new Map<string, number>();
  #total = 0;
  readonly #waiting: Waiter[] = [];

  constructor(perDaemon = defaultDaemonTaskLimit) {
    this.#perDaemon = perDaemon;
  }

  /** A slot for a call of `sessionId`, whose limit is `limit`; waits while either limit is reached. */
  acquire(sessionId: string, limit: number, signal: AbortSignal): Promise<TaskSlot> {
    signal.throwIfAborted();
    if (this.#fits(sessionId, limit)) return Promise.resolve(this.#take(sessionId));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { sessionId, limit, grant: resolve };
      this.#waiting.push(waiter);
      signal.addEventListener(
        "abort",
        () => {
          const index = this.#waiting.indexOf(waiter);
          if (index < 0) return;
          this.#waiting.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** How many calls of `sessionId` run now. */
  running(sessionId: string): number {
    return this.#running.get(sessionId) ?? 0;
  }

  #fits(sessionId: string, limit: number): boolean {
    return this.#total < this.#perDaemon && this.running(sessionId) < limit;
  }

  #take(sessionId: string): TaskSlot {
    this.#total++;
    this.#running.set(sessionId, this.running(sessionId) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      const left = this.running(sessionId) - 1;
      if (left === 0) this.#running.delete(sessionId);
      else this.#running.set(sessionId, left);
      this.#grantWaiting();
    };
  }

  #grantWaiting(): void {
    for (let i = 0; i < this.#waiting.length; i++) {
      const waiter = this.#waiting[i]!;
      if (!this.#fits(waiter.sessionId, waiter.limit)) continue;
      this.#waiting.splice(i, 1);
      i--;
      waiter.grant(this.#take(waiter.sessionId));
    }
  }
}
