/**
 * Which crashed session actors are restarted at once: a crash restarts its session's actor
 * eagerly, so queued inputs keep flowing, but at most once per window for one session (the next
 * request still loads it), so a bug that fails every turn cannot spin the daemon.
 *
 * Boundary rule: bookkeeping only; the registry restarts.
 */

/** A session whose actor crashes twice within this window is not restarted eagerly again. */
const crashRestartWindowMs = 5_000;

export class CrashRestarts {
  readonly #last = new Map<string, number>();

  /** Whether the actor of session `sessionId`, crashed at `now`, is restarted now (noted when it is). */
  allow(sessionId: string, now: number): boolean {
    const last = this.#last.get(sessionId);
    if (last !== undefined && now - last < crashRestartWindowMs) return false;
    this.#last.set(sessionId, now);
    return true;
  }
}
