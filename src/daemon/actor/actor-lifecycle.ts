/**
 * The life of one session actor (actor/session-actor.ts): the mailbox its tasks run in, one at a
 * time, when it was last used (an actor unused long enough may be unloaded), and how it stops: its
 * running turn aborted, its parts disposed, its feed closed.
 *
 * Boundary rule: a stopped actor runs nothing more; a task still queued when it stops fails with
 * ActorStoppedError as its turn comes. From the moment it begins stopping no new turn starts, even
 * for inputs still queued (the next actor takes them).
 */
import { ActorStoppedError } from "../errors.js";
import { Mailbox } from "../session/mailbox.js";
import type { SessionServices } from "../session/session-services.js";
import { WriteFencedError } from "../storage/session-storage.js";
import type { SessionFeed } from "../stream/session-feed.js";
import type { StopReason } from "./actor-supervisor.js";
import type { SessionParts } from "./session-parts.js";

export class ActorLifecycle {
  readonly #sessionId: string;
  readonly #services: Pick<SessionServices, "now" | "logger">;
  readonly #parts: Pick<SessionParts, "turns" | "compactor">;
  readonly #feed: SessionFeed;
  readonly #mailbox = new Mailbox();
  #stopped = false;
  #stopping = false;
  #lastUsedAt: number;

  constructor(
    sessionId: string,
    services: Pick<SessionServices, "now" | "logger">,
    parts: Pick<SessionParts, "turns" | "compactor">,
    feed: SessionFeed,
  ) {
    this.#sessionId = sessionId;
    this.#services = services;
    this.#parts = parts;
    this.#feed = feed;
    this.#lastUsedAt = services.now();
  }

  /** Whether the actor has stopped (it runs nothing more). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Whether the actor is stopping or has stopped: no new turn starts. */
  get halted(): boolean {
    return this.#stopped || this.#stopping;
  }

  /** The actor was used now (its idle time counts from here). */
  touch(): void {
    this.#lastUsedAt = this.#services.now();
  }

  /** Whether the actor has gone unused for at least `idleMs` at `now`. */
  unusedFor(now: number, idleMs: number): boolean {
    return now - this.#lastUsedAt >= idleMs;
  }

  /** Queue a task in the mailbox; a stopped actor refuses new work. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    if (this.#stopped) return Promise.reject(new ActorStoppedError(this.#sessionId));
    this.touch();
    return this.#mailbox.run(() => {
      if (this.#stopped) throw new ActorStoppedError(this.#sessionId);
      return task();
    });
  }

  /**
   * Stop, aborting a running turn: after a debug restart it ends `failed`; at shutdown, or with the
   * lease lost, it is left `running` for the next start (or the new owner) to recover.
   */
  async stop(reason: StopReason): Promise<void> {
    if (this.halted) return;
    this.#stopping = true;
    if (reason !== "shutdown" && reason !== "lease_lost") {
      const turn = this.#parts.turns.abortFor("crashed");
      if (turn !== null) {
        await turn.done;
        // The turn's end (its log entries and turn row) is queued in the mailbox: let it finish.
        await this.#mailbox.idle();
      }
      this.close(reason);
      return;
    }
    this.close(reason);
    this.#parts.turns.abortFor("shutdown");
  }

  /** Stop at once, as things are: no task runs any more, the parts let go, the feed closed. */
  close(reason: StopReason): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#parts.compactor.abort();
    this.#parts.turns.dispose();
    this.#feed.close();
    this.#services.logger.info({ session_id: this.#sessionId, reason }, "session actor stopped");
  }

  /**
   * An unexpected failure: end the turn as failed if possible and stop. False when the actor had
   * stopped already (nobody is told); true when its supervisor must hear of it.
   */
  crash(error: unknown): boolean {
    if (this.#stopped) return false;
    if (error instanceof WriteFencedError) {
      // Not a crash: the session's lease moved on (a takeover, or a newer claim of this node).
      // Stop as for a lost lease, writing nothing more; the supervisor does not restart it.
      void this.stop("lease_lost");
      return true;
    }
    this.#services.logger.error({ session_id: this.#sessionId, err: error }, "session actor crashed");
    void this.#parts.turns.failOnCrash(error);
    this.close("crashed");
    return true;
  }
}
