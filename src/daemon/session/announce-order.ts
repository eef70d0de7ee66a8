/**
 * The order in which a session's durable commits announce and publish. A commit started with
 * `SessionLogWriter.begin` (a turn's start) waits for the event loop's next check phase once it
 * is durable, so the I/O its caller started when it was written (the model request, which
 * undici writes on a reused keep-alive socket only in the check phase after its dispatch) goes
 * out before the events, the input's 202 and what they set off. A commit that became durable
 * meanwhile (one flush may cover both) waits behind it, so announcements keep the commits' order.
 *
 * Boundary rule: ordering only; what is announced is the writer's.
 */

/** Resolves in the event loop's next check phase, after the immediates queued before it. */
function nextCheckPhase(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** One session writer's announcement order. */
export class AnnounceOrder {
  /** A started commit's wait, while it lasts. */
  #waiting: Promise<void> | null = null;

  /** Resolves when a durable commit may announce: `started` for a commit made by `begin`. */
  async turn(started: boolean): Promise<void> {
    if (started) {
      const wait = nextCheckPhase();
      this.#waiting = wait;
      await wait;
      if (this.#waiting === wait) this.#waiting = null;
    } else if (this.#waiting !== null) {
      await this.#waiting;
    }
  }
}
