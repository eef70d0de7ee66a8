/**
 * Cross-node wake-ups for waiting `task` calls: a node announces each turn end of the sessions
 * it runs (`NOTIFY skein_task, '<session id>'`), and every node's listener wakes the calls it has
 * waiting on that session (the task hub). A parent whose child another node owns thus hears of
 * the child's end at once instead of at its next look at the database. Likewise each change of
 * a session's approvals (`'approvals:<session id>'`, after a request or an answer is committed):
 * the node whose call waits on that session relays them to the parent's stream (task/approval-relay.ts).
 *
 * Boundary rule: turn ends are an optimisation only. A lost notification (a connection down, a
 * node that died between its commit and its NOTIFY) costs latency, never correctness: the
 * waiting call still looks at the database on its bounded poll (task-run.ts). A lost approvals
 * notification leaves the parent's stream without that change until the next one or the call's
 * next start; the child's own stream and snapshot always have it.
 */
import type pg from "pg";
import type { WakeUpConnection, WakeUpSubscription } from "./wake-up-connection.js";

/** The channel turn ends and approval changes are announced on. */
const taskChannel = "skein_task";

/** The start of an approvals announcement's payload (a turn end's is the bare session id). */
const approvalsPrefix = "approvals:";

/** What a node hears of other nodes' sessions (and its own). */
export interface TaskAnnouncements {
  /** A turn of `sessionId` ended. */
  turnEnded(sessionId: string): void;
  /** `sessionId` logged an approval request or an answer. */
  approvalsChanged(sessionId: string): void;
}

export class TaskWakeUps {
  readonly #pool: pg.Pool;
  readonly #heard: TaskAnnouncements;
  #listening: WakeUpSubscription | null = null;

  /** Announce through `pool`; `heard` hears each announcement (this node's too). */
  constructor(pool: pg.Pool, heard: TaskAnnouncements) {
    this.#pool = pool;
    this.#heard = heard;
  }

  /** Listen on `wakeUps`. */
  async start(wakeUps: WakeUpConnection): Promise<void> {
    this.#listening = await wakeUps.subscribe(taskChannel, (payload) => {
      // "" after a lost connection came back: nothing to name, the polls find what was missed.
      if (payload === "") return;
      if (payload.startsWith(approvalsPrefix))
        this.#heard.approvalsChanged(payload.slice(approvalsPrefix.length));
      else this.#heard.turnEnded(payload);
    });
  }

  /** Tell every node that a turn of `sessionId` ended (fire and forget). */
  announce(sessionId: string): void {
    // Lost, it costs the waiting call one poll; the database's trouble is logged where it matters.
    this.#notify(sessionId);
  }

  /** Tell every node that `sessionId` logged an approval request or answer (fire and forget). */
  announceApprovals(sessionId: string): void {
    this.#notify(`${approvalsPrefix}${sessionId}`);
  }

  #notify(payload: string): void {
    if (this.#listening === null) return;
    this.#pool.query("SELECT pg_notify($1, $2)", [taskChannel, payload]).catch(() => undefined);
  }

  /** Stop listening and announcing. */
  stop(): void {
    this.#listening?.unsubscribe();
    this.#listening = null;
  }
}
