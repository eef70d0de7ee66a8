/**
 * The supervisor of session actors: loads an actor on demand from durable state, replaces one
 * that crashed (with a new generation), unloads quiet ones, recovers turns a crash cut short,
 * creates and forks sessions, and drains everything at shutdown.
 *
 * Boundary rule: at most one live actor per session (loaded-actors.ts keeps the actors, the
 * loads in flight and the actors still stopping).
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { SessionSummary } from "../../api/session-snapshot.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import type { LogEntry, PositionedEntry } from "../../log/entries.js";
import { LogCorruptError, SessionNotFoundError } from "../../log/errors.js";
import { ActorStoppedError, SessionUnavailableError } from "../errors.js";
import { type HistoryLog, wholeLog } from "../history/history-log.js";
import { previewOf } from "../history/preview.js";
import type { SessionServices } from "../session/session-services.js";
import { idleStatus, resolvedProvider, sessionSummary } from "../session/session-snapshot.js";
import { WriteFencedError } from "../storage/session-storage.js";
import type { NewSession, SessionListFilter, SessionPage, SessionRow } from "../storage/sessions-table.js";
import type { ActorSupervisor, SupervisedActor } from "./actor-supervisor.js";
import { CrashRestarts } from "./crash-restarts.js";
import { type FirstInputPlan, withFirstInput } from "./first-input.js";
import { LoadedActors } from "./loaded-actors.js";
import { SessionActor } from "./session-actor.js";
import type { SessionCensus } from "./session-census.js";
import {
  type CreatedActor,
  type ForkSessionRequest,
  forkRecord,
  type NewSessionRequest,
  newSessionRecord,
} from "./session-creation.js";
import { type OpenedListStream, SessionListHub } from "./session-list-hub.js";

export class SessionRegistry {
  readonly #services: SessionServices;
  readonly #listHub: SessionListHub;
  readonly #supervisor: ActorSupervisor;
  readonly #actors: LoadedActors;
  #unloadTimer: NodeJS.Timeout | null = null;
  readonly #crashRestarts = new CrashRestarts();

  constructor(services: SessionServices) {
    this.#services = services;
    this.#actors = new LoadedActors(services.logger);
    this.#listHub = new SessionListHub(
      { list: (filter) => this.list(filter), summary: (sessionId) => this.summaryOf(sessionId) },
      services.feedOptions === undefined ? {} : { feed: services.feedOptions },
    );
    const rowOf = (actor: SupervisedActor) => ({ id: actor.sessionId, parentId: actor.parentId });
    this.#supervisor = {
      crashed: (actor, error) => this.#onCrash(actor, error),
      summaryChanged: (actor) => this.#listHub.changed(actor.sessionId),
      statusChanged: (actor, status) => this.#listHub.statusChanged(rowOf(actor), status),
      deleted: (actor) => this.#listHub.deleted(rowOf(actor)),
    };
  }

  /** The loaded sessions now (metrics). */
  census(): SessionCensus {
    return this.#actors.census();
  }

  /** The loaded actor of a session, loading it from storage first if needed. */
  get(sessionId: string): Promise<SessionActor> {
    return this.#actors.get(sessionId, (id) => this.#load(id));
  }

  /** Load a session's actor (its row must exist) and start what waits in it. */
  async #load(sessionId: string): Promise<SessionActor> {
    const ownership = this.#services.ownership;
    // No lease for a missing session; on one node `SessionActor.load` finds a missing row itself.
    if (ownership !== undefined && (await this.#services.storage.getSession(sessionId)) === null)
      throw new SessionNotFoundError(sessionId);
    // The actor writes under the epoch of this claim, never a later one (see WriteFence).
    const epoch = ownership === undefined ? null : await ownership.acquire(sessionId);
    return SessionActor.load(this.#servicesUnder(epoch), sessionId, this.#supervisor, epoch)
      .then(async (actor) => {
        this.#actors.set(sessionId, actor);
        // Its kick recovers a turn a crash or a shutdown left `running` (abandoned, noted, a new
        // turn) before anything else, then lets the queue run (nothing starts while draining).
        await actor.recoverOrKick();
        return actor;
      })
      .catch((error: unknown) => {
        if (this.#actors.mapped(sessionId) === undefined) void ownership?.release(sessionId);
        throw error;
      });
  }

  /** The services of an actor that writes under lease epoch `epoch` (null: one node, unfenced). */
  #servicesUnder(epoch: number | null): SessionServices {
    if (epoch === null) return this.#services;
    return { ...this.#services, storage: this.#services.storage.forLease(epoch) };
  }

  /**
   * Run `work` on the session's actor. If the actor stops underneath it (a debug restart, an
   * unload, a crash, a lost lease) or its write is fenced (it was loaded under an older lease
   * epoch; nothing of the write committed), the work is retried once on the session's current
   * actor, so a request racing a restart or a takeover is answered as the current owner answers
   * it: here, or 503 with Retry-After when another node owns the session now (the next try is
   * relayed there).
   */
  async withActor<T>(sessionId: string, work: (actor: SessionActor) => Promise<T> | T): Promise<T> {
    try {
      return await work(await this.get(sessionId));
    } catch (error) {
      if (!(error instanceof ActorStoppedError || error instanceof WriteFencedError)) throw error;
    }
    try {
      return await work(await this.get(sessionId));
    } catch (error) {
      if (!(error instanceof ActorStoppedError)) throw error;
      // Stopped twice in a row: deleted (404), or stopping for another reason (503, not "not found").
      if ((await this.#services.storage.getSession(sessionId)) === null)
        throw new SessionNotFoundError(sessionId);
      throw new SessionUnavailableError(sessionId);
    }
  }

  /** How many loads are in flight (each settles and leaves; a test watches that none is left behind). */
  get loadingCount(): number {
    return this.#actors.loadingCount;
  }

  /** The actor if it is loaded (never loads). */
  loaded(sessionId: string): SessionActor | undefined {
    return this.#actors.loaded(sessionId);
  }

  /**
   * A session's verified log, read from storage (history pages never load the actor). A log
   * that fails verification also stops a loaded actor from taking more input.
   */
  async readLog(sessionId: string) {
    let entries: PositionedEntry[];
    try {
      entries = await this.#services.storage.readLog(sessionId);
    } catch (error) {
      if (error instanceof LogCorruptError) this.loaded(sessionId)?.markCorrupt(error);
      throw error;
    }
    this.loaded(sessionId)?.confirmRead(entries);
    return entries;
  }

  /**
   * A session's log for history pages: a loaded session's in verified ranges anchored on what it
   * verified at load (cost independent of the log's length), any other's read whole and verified.
   */
  async historyLog(sessionId: string): Promise<HistoryLog> {
    const actor = this.loaded(sessionId);
    if (actor !== undefined) return actor.historyLog();
    return wholeLog(await this.readLog(sessionId));
  }

  /** A session's recorded head as stored (not checked; see verify-report.ts). */
  readHeadRecord(sessionId: string) {
    return this.#services.storage.readHeadRecord(sessionId);
  }

  /** The summaries `filter` selects (default: all; `page`: that page), newest activity first; cursor null when not loaded. */
  async list(filter: SessionListFilter = { kind: "all" }, page?: SessionPage): Promise<SessionSummary[]> {
    return (await this.#services.storage.listSessions(filter, page)).map((row) => this.summary(row));
  }

  /** The summary of one session, or null when there is no such session. */
  async summaryOf(sessionId: string): Promise<SessionSummary | null> {
    const row = await this.#services.storage.getSession(sessionId);
    return row === null ? null : this.summary(row);
  }

  /** Whether the session exists (has a row). */
  async exists(sessionId: string): Promise<boolean> {
    return (await this.#services.storage.getSession(sessionId)) !== null;
  }

  /** Open a stream of the session list (`GET /sessions` as SSE); see SessionListHub. */
  openList(filter: SessionListFilter, after: StreamCursor | null): Promise<OpenedListStream> {
    return this.#listHub.open(filter, after);
  }

  /** The summary of one session row with its live status when loaded. */
  summary(row: SessionRow): SessionSummary {
    const actor = this.loaded(row.id);
    return sessionSummary(
      row,
      actor?.status ?? idleStatus,
      actor?.cursor ?? null,
      resolvedProvider(row, this.#services.describeProvider),
    );
  }

  /** Create a session: row, session_start, first input and its turn's start (and its lease) in one transaction. Throws SessionExistsError. */
  async create(request: NewSessionRequest): Promise<CreatedActor> {
    const now = this.#services.now();
    const { row, entries } = newSessionRecord(request, now);
    const first = request.firstInput;
    if (first === undefined) return this.#start(row, entries);
    // The turn starts in the creation's commit only where the new actor is built from that commit
    // (a cluster's too, under its lease); a loaded actor (a drain) starts it from the queue.
    const startTurn = !this.#actors.draining;
    const plan = { now, startTurn, tracing: this.#services.tracing };
    return withFirstInput(row.id, entries, first, plan, (all, planned) => this.#start(row, all, planned));
  }

  /** Fork a session at a history checkpoint into a new session (same workspace, provider, model). */
  async fork(request: ForkSessionRequest): Promise<CreatedActor> {
    const source = await this.#services.storage.getSession(request.sourceSessionId);
    if (source === null) throw new SessionNotFoundError(request.sourceSessionId);
    const entries = await this.readLog(request.sourceSessionId);
    const { row, entries: forked } = forkRecord(request, source, entries, this.#services.now());
    return this.#start(row, forked);
  }

  /**
   * Write a new session's row, its log and its preview in one transaction, then give it its
   * actor. `entries` is the whole log, first entry (a session_start) first.
   */
  async #start(row: NewSession, entries: readonly LogEntry[], first?: FirstInputPlan): Promise<CreatedActor> {
    const preview = previewOf(entries.map((entry, position) => ({ entry, position })));
    const created = await this.#services.storage.createSession(row, entries, preview, first?.writes);
    void this.#listHub.created(row.id).catch(() => undefined);
    const id = row.id;
    // Loaded as usual once a request loads it meanwhile (a started turn is then taken as cut short).
    if (this.#actors.busy(id) || this.#actors.draining || first?.turn === null) {
      // A turn its creation started is not this path's to run: the load recovers it as cut short.
      first?.turn?.trace?.end("abandoned", "error", "session_loaded_meanwhile", null);
      const actor = await this.get(id);
      const receipt = first === undefined ? {} : { firstInput: () => actor.receipt(first.receipt.id) };
      return { actor, snapshot: () => actor.snapshot(), ...receipt };
    }
    // Else built from what the commit wrote (its own write: nothing to read back), under the lease
    // epoch it took (fenced once another claim raised it); nothing waits in it (only its actor
    // writes turns and inputs; a fork's open calls are closed); a first input's turn runs now.
    const services = this.#servicesUnder(created.epoch);
    const made = SessionActor.fromCreation(services, created, this.#supervisor, first?.turn ?? null);
    this.#actors.set(id, made.actor);
    if (first === undefined) return made;
    return { ...made, firstInput: () => Promise.resolve(first.receipt) };
  }

  /** Debug route: stop a session's actor as if it had crashed; the next request loads a new one. */
  async restart(sessionId: string): Promise<void> {
    const actor = this.loaded(sessionId);
    if (actor === undefined) {
      if (!(await this.exists(sessionId))) throw new SessionNotFoundError(sessionId);
      return;
    }
    await this.#actors.retire(sessionId, actor, "restart");
    await this.#release(sessionId);
  }

  /** Hold the session's loads until `until` settles (retention cuts only logs no actor holds); false when it is here already. */
  holdLoads(sessionId: string, until: Promise<unknown>): boolean {
    return this.#actors.holdLoads(sessionId, until);
  }

  /** Forget a deleted session's actor and checkpoints; `parentId` given: list watchers hear of it (it had no actor). */
  forget(sessionId: string, parentId?: string | null): void {
    this.#actors.delete(sessionId);
    this.#services.removeCheckpoints?.(sessionId);
    if (parentId !== undefined) this.#listHub.deleted({ id: sessionId, parentId });
    void this.#release(sessionId);
  }

  /**
   * The session's lease under `epoch` is lost (another node owns it now, or this node claimed it
   * again under a newer epoch): stop the actor loaded under it without writing anything. An
   * actor of another epoch (the current one) is left alone.
   */
  leaseLost(sessionId: string, epoch: number): void {
    this.#actors.leaseLost(sessionId, epoch);
  }

  async #release(sessionId: string): Promise<void> {
    if (this.#actors.holds(sessionId)) return;
    await this.#services.ownership?.release(sessionId).catch(() => undefined);
  }

  /** Unload actors that have been quiet for `idleMs` (checked every `everyMs`). */
  startUnloading(idleMs: number, everyMs = Math.min(Math.max(idleMs / 4, 250), 30_000)): void {
    this.#unloadTimer = setInterval(() => {
      void this.#actors.retireQuiet(this.#services.now(), idleMs, (id) => this.#release(id));
    }, everyMs);
    this.#unloadTimer.unref();
  }

  /**
   * Wait up to `timeoutMs` for running turns to end; then stop every actor. With `handOff`
   * (another live node recovers the turns at once) a turn is waited for only until every tool
   * it started has its result committed.
   */
  async drain(timeoutMs: number, options: { handOff?: boolean } = {}): Promise<void> {
    this.#actors.startDraining();
    if (this.#unloadTimer !== null) clearInterval(this.#unloadTimer);
    this.#listHub.close();
    // A turn that waits for a person's answer is not waited for: the next start waits again.
    const running = this.#actors.entries().map(([, actor]) => actor.turnSettled(options.handOff === true));
    const waited = new AbortController();
    await Promise.race([Promise.all(running), sleep(timeoutMs, undefined, waited).catch(() => undefined)]);
    waited.abort();
    for (const id of await this.#actors.stopAll()) await this.#release(id);
  }

  #onCrash(actor: SupervisedActor, error: unknown): void {
    const id = actor.sessionId;
    if (this.#actors.mapped(id) === actor) this.#actors.delete(id);
    // Fenced: another node owns the session now; it is not this node's to restart.
    if (error instanceof WriteFencedError) {
      this.#services.logger.warn(
        { session_id: id },
        "session actor stopped: this node lost the session's lease",
      );
      return;
    }
    // A turn the crash cut short ended with it; the next actor starts idle.
    if (actor.status.phase !== "idle")
      this.#listHub.statusChanged({ id, parentId: actor.parentId }, idleStatus);
    if (!this.#crashRestarts.allow(id, this.#services.now())) {
      this.#services.logger.warn(
        { session_id: id },
        "session actor crashed again; not restarting it eagerly",
      );
      return;
    }
    this.get(id).catch((error: unknown) => {
      this.#services.logger.error({ session_id: id, err: error }, "could not restart session actor");
    });
  }
}
