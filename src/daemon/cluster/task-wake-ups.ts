/**
 * Cross-node wake-ups for waiting `task` calls: a node announces each turn end of the sessions
 * it runs (`NOTIFY skein_task, '<session id>'`), and every node's listener wakes the calls it has
 * waiting on that session (the task hub). A parent whose child another node owns thus hears of
 * the child's end at once instead of at its next look at the database.
 *
 * Boundary rule: an optimisation only. A lost notification (a connection down, a node that died
 * between its commit and its NOTIFY) costs latency, never correctness: the waiting call still
 * looks at the database on its bounded poll (task-run.ts).
 */
import type pg from "pg";
import type { SessionLogger } from "../session/session-services.js";
import { WakeUpListener } from "./wake-up-listener.js";

/** The channel turn ends are announced on. */
const taskChannel = "skein_task";

export class TaskWakeUps {
  readonly #pool: pg.Pool;
  readonly #logger: SessionLogger;
  readonly #wake: (sessionId: string) => void;
  #listener: WakeUpListener | null = null;

  /** Announce through `pool`; `wake` hears the session id of each announcement (this node's too). */
  constructor(pool: pg.Pool, logger: SessionLogger, wake: (sessionId: string) => void) {
    this.#pool = pool;
    this.#logger = logger;
    this.#wake = wake;
  }

  /** Listen with `connection` (throws when the database cannot be reached now). */
  async start(connection: pg.ClientConfig): Promise<void> {
    this.#listener = new WakeUpListener(connection, taskChannel, this.#logger, (payload) => {
      // "" after a lost connection came back: nothing to name, the polls find what was missed.
      if (payload !== "") this.#wake(payload);
    });
    await this.#listener.start();
  }

  /** Tell every node that a turn of `sessionId` ended (fire and forget). */
  announce(sessionId: string): void {
    if (this.#listener === null) return;
    // Lost, it costs the waiting call one poll; the database's trouble is logged where it matters.
    this.#pool.query("SELECT pg_notify($1, $2)", [taskChannel, sessionId]).catch(() => undefined);
  }

  /** Stop listening. */
  async stop(): Promise<void> {
    const listener = this.#listener;
    this.#listener = null;
    await listener?.stop();
  }
}
