/**
 * The session actors the registry (session-registry.ts) holds: the live one of each loaded
 * session, the loads in flight and the actors still stopping.
 *
 * Boundary rule: at most one live actor per session. Loads are deduplicated, an actor that
 * stopped is dropped from the map before anyone can be handed it again, and a session loads
 * again only once its previous actor has stopped. Once the drain begins, nothing loads.
 */
import { DaemonDrainingError } from "../errors.js";
import type { SessionLogger } from "../session/session-services.js";
import type { SessionActor } from "./session-actor.js";
import { censusOf, type SessionCensus } from "./session-census.js";

export class LoadedActors {
  readonly #logger: SessionLogger;
  /** Set once the drain begins: sessions that are not loaded stay unloaded. */
  #draining = false;
  readonly #actors = new Map<string, SessionActor>();
  readonly #loading = new Map<string, Promise<SessionActor>>();
  /**
   * Actors out of the map still stopping (they may still write their turn's end): the next actor
   * loads after them, or it would take that turn for one a crash cut short.
   */
  readonly #stopping = new Map<string, Promise<void>>();

  constructor(logger: SessionLogger) {
    this.#logger = logger;
  }

  /** Whether the drain began (no session loads any more). */
  get draining(): boolean {
    return this.#draining;
  }

  /** Begin the drain: sessions that are not loaded stay unloaded from now on. */
  startDraining(): void {
    this.#draining = true;
  }

  /** How many loads are in flight. */
  get loadingCount(): number {
    return this.#loading.size;
  }

  /** The loaded sessions now (metrics). */
  census(): SessionCensus {
    return censusOf(this.#actors.values());
  }

  /**
   * The live actor of a session; else, once an actor still stopping has stopped, the load in
   * flight or a new one `load` starts.
   */
  async get(sessionId: string, load: (sessionId: string) => Promise<SessionActor>): Promise<SessionActor> {
    const live = this.#actors.get(sessionId);
    if (live !== undefined && !live.stopped) return live;
    const stopping = this.#stopping.get(sessionId);
    if (stopping !== undefined) {
      await stopping;
      return this.get(sessionId, load);
    }
    const pending = this.#loading.get(sessionId);
    if (pending !== undefined) return pending;
    if (this.#draining) throw new DaemonDrainingError(sessionId);
    // Cleared however the load ends, including a throw before its first await settles: a load
    // left in the map would answer every later request for the id with its failure.
    const started = load(sessionId).finally(() => {
      if (this.#loading.get(sessionId) === started) this.#loading.delete(sessionId);
    });
    this.#loading.set(sessionId, started);
    return started;
  }

  /** The actor if it is loaded and not stopped (never loads). */
  loaded(sessionId: string): SessionActor | undefined {
    const actor = this.#actors.get(sessionId);
    return actor?.stopped === false ? actor : undefined;
  }

  /** The actor in the map for the session, stopped or not. */
  mapped(sessionId: string): SessionActor | undefined {
    return this.#actors.get(sessionId);
  }

  /** The session's actor is loaded (by a load, or built from the session's creation). */
  set(sessionId: string, actor: SessionActor): void {
    this.#actors.set(sessionId, actor);
  }

  /** Drop the session's actor from the map (it stops, or its session is gone). */
  delete(sessionId: string): void {
    this.#actors.delete(sessionId);
  }

  /** Whether the session has an actor loaded or loading (so its lease is still needed). */
  holds(sessionId: string): boolean {
    return this.#actors.has(sessionId) || this.#loading.has(sessionId);
  }

  /** Whether the session has an actor loaded, loading or still stopping. */
  busy(sessionId: string): boolean {
    return this.holds(sessionId) || this.#stopping.has(sessionId);
  }

  /** The loaded actors now, by session (a copy). */
  entries(): Array<[string, SessionActor]> {
    return [...this.#actors];
  }

  /** Take `actor` out of the map and stop it; the session loads again only once it has stopped. */
  retire(sessionId: string, actor: SessionActor, reason: "restart" | "unload"): Promise<void> {
    this.#actors.delete(sessionId);
    const stopped = actor.stop(reason).catch((error: unknown) => {
      this.#logger.error({ session_id: sessionId, err: error }, "session actor failed to stop cleanly");
    });
    return this.#hold(sessionId, stopped);
  }

  /** Retire every actor quiet for `idleMs` at `now`; `retired` runs for each once it has stopped. */
  async retireQuiet(
    now: number,
    idleMs: number,
    retired: (sessionId: string) => Promise<void>,
  ): Promise<void> {
    for (const [id, actor] of [...this.#actors]) {
      try {
        if (!(await actor.isQuiet(now, idleMs)) || this.#actors.get(id) !== actor) continue;
      } catch {
        continue; // storage trouble: try again at the next check
      }
      void this.retire(id, actor, "unload").then(() => retired(id));
    }
  }

  /** Hold the session's loads until `until` settles; false when it is here already (or draining). */
  holdLoads(sessionId: string, until: Promise<unknown>): boolean {
    if (this.#draining || this.busy(sessionId)) return false;
    const settled = until.then(() => undefined).catch(() => undefined);
    void this.#hold(sessionId, settled);
    return true;
  }

  /** Loads of the session wait until `until` settles (it must not reject). */
  #hold(sessionId: string, until: Promise<void>): Promise<void> {
    const held = until.finally(() => {
      if (this.#stopping.get(sessionId) === held) this.#stopping.delete(sessionId);
    });
    this.#stopping.set(sessionId, held);
    return held;
  }

  /** Stop the actor loaded under lease epoch `epoch` without writing anything (another epoch's is left alone). */
  leaseLost(sessionId: string, epoch: number): void {
    const actor = this.#actors.get(sessionId);
    if (actor === undefined || actor.epoch !== epoch) return;
    this.#actors.delete(sessionId);
    void actor.stop("lease_lost");
  }

  /** Stop every loaded actor (a shutdown) and empty the map; the sessions they were loaded for. */
  async stopAll(): Promise<string[]> {
    const stopped = [...this.#actors.keys()];
    for (const actor of this.#actors.values()) await actor.stop("shutdown");
    this.#actors.clear();
    return stopped;
  }
}
