/**
 * Watching one session for a command: follows its stream (through the client's reconnecting
 * follower), feeds a TranscriptView, and keeps what commands wait on: the status, the token
 * usage, and which turn took which input and how it ended (turn-tracker.ts keeps the turns).
 *
 * Boundary rule: state and waiting only; what is printed is the view's business and what to do
 * about an outcome is the command's. After a reset (daemon restart, lost replay) it re-syncs:
 * entries missed while away are paged in from history until a known one is found, and inputs
 * still awaited are looked up by receipt, so a turn that a restart abandoned is followed into
 * the recovery turn that continues it.
 */
import type { HistoryEntry } from "../api/history.js";
import type { InputReceipt } from "../api/inputs.js";
import type { SessionEvent } from "../api/session-events.js";
import type { SessionPhase, SessionSnapshot } from "../api/session-snapshot.js";
import type { StreamCursor } from "../api/stream-cursor.js";
import type { DaemonClient } from "../client/daemon-client.js";
import type { StreamBatch } from "../client/stream-batch.js";
import { unreachable } from "../model/unreachable.js";
import type { TranscriptView } from "./render/transcript-view.js";
import { addUsage, emptyUsage, type TurnOutcome, TurnTracker, type UsageTotals } from "./turn-tracker.js";

export interface SessionWatcherOptions {
  /** Resume after this cursor (e.g. a new session's snapshot cursor); null: attach fresh. */
  after: StreamCursor | null;
  /** History entries in a reset's snapshot (the initial one included). */
  tail?: number;
  /** What to do with the history in the first snapshot: show it, or only remember it. */
  initialHistory: "render" | "skip";
  /** Every batch as received (for `--json`). */
  onBatch?: (batch: StreamBatch) => void;
  /** Called after every batch (status checks such as `--until-idle`). */
  afterBatch?: () => void;
}

/** Follows one session for a command and keeps what the command waits on. */
export class SessionWatcher {
  status: { phase: SessionPhase; run_id: string | null; interrupt_requested: boolean } = {
    phase: "idle",
    run_id: null,
    interrupt_requested: false,
  };
  model: string | null = null;
  readonly sessionUsage: UsageTotals = emptyUsage();
  readonly #turns = new TurnTracker();
  readonly #awaited = new Set<string>();
  readonly #abort = new AbortController();
  readonly #listeners = new Set<() => void>();
  #firstBatch = true;
  #connected: { promise: Promise<void>; resolve: () => void };
  #failure: unknown = null;
  #stopped = false;
  #loop: Promise<void> | null = null;
  #lostTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: DaemonClient,
    readonly sessionId: string,
    private readonly view: TranscriptView | null,
    private readonly options: SessionWatcherOptions,
  ) {
    let resolve = () => {};
    const promise = new Promise<void>((done) => {
      resolve = done;
    });
    this.#connected = { promise, resolve };
  }

  /** Start following (idempotent). */
  start(): void {
    this.#loop ??= this.#run();
  }

  /** Resolves once the first batch was handled (the stream is positioned). */
  async connected(): Promise<void> {
    await Promise.race([this.#connected.promise, this.#settled()]);
    if (this.#failure !== null) throw this.#failure;
  }

  /** Stop following. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    clearTimeout(this.#lostTimer);
    await this.#loop?.catch(() => undefined);
  }

  /** Inputs queued and not yet taken by a turn. */
  get pendingInputs(): Set<string> {
    return this.#turns.pendingInputs;
  }

  /** The turn that took an input, once known. */
  turnOf(inputId: string): string | null {
    return this.#turns.turnOf(inputId);
  }

  /** The turn that took an input and the turns that continued it after restarts, oldest first. */
  turnsOf(inputId: string): string[] {
    return this.#turns.turnsOf(inputId);
  }

  /** Token usage of a turn so far. */
  usageOf(turnId: string | null): UsageTotals {
    return this.#turns.usageOf(turnId);
  }

  /** Learn from a receipt (the 202 of a PUT, or a receipt fetched after a reset). */
  noteReceipt(receipt: InputReceipt): void {
    this.#turns.noteReceipt(receipt);
    this.#notify();
  }

  /** Resolves when the turn that takes `inputId` has ended (following it across a restart). */
  waitForInput(inputId: string): Promise<TurnOutcome> {
    this.#awaited.add(inputId);
    return this.waitUntil(() => this.outcomeOf(inputId)).finally(() => this.#awaited.delete(inputId));
  }

  /** How the input's turn ended, or null while it has not. */
  outcomeOf(inputId: string): TurnOutcome | null {
    return this.#turns.outcomeOf(inputId);
  }

  /** Resolves when `check` returns a value other than null/false; rejects if following fails. */
  waitUntil<T>(check: () => T | null | false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const test = (): void => {
        if (this.#failure !== null) {
          this.#listeners.delete(test);
          reject(this.#failure);
          return;
        }
        const value = check();
        if (value !== null && value !== false) {
          this.#listeners.delete(test);
          resolve(value);
        }
      };
      this.#listeners.add(test);
      test();
    });
  }

  async #run(): Promise<void> {
    try {
      const items = this.client.follow(this.sessionId, {
        after: this.options.after,
        ...(this.options.tail === undefined ? {} : { tail: this.options.tail }),
        signal: this.#abort.signal,
      });
      for await (const item of items) {
        switch (item.kind) {
          case "disconnected":
            clearTimeout(this.#lostTimer);
            // Only a lasting loss is worth a line; a restart shows its own notice.
            this.#lostTimer = setTimeout(
              () => this.view?.notice("connection to the daemon lost; reconnecting…"),
              2_000,
            );
            break;
          case "reconnected":
            clearTimeout(this.#lostTimer);
            break;
          case "batch":
            await this.#batch(item.batch);
            break;
          default:
            unreachable(item, "unknown stream item");
        }
      }
    } catch (error) {
      if (!this.#stopped) this.#failure = error;
    } finally {
      clearTimeout(this.#lostTimer);
      this.#connected.resolve();
      if (this.#failure === null && !this.#stopped) this.#failure = new Error("the session stream ended");
      this.#notify();
    }
  }

  #settled(): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.#failure !== null) {
          this.#listeners.delete(check);
          resolve();
        }
      };
      this.#listeners.add(check);
    });
  }

  async #batch(batch: StreamBatch): Promise<void> {
    this.options.onBatch?.(batch);
    if (batch.reset !== null) await this.#reset(batch.reset.reason, batch.reset.snapshot);
    for (const event of batch.events) {
      this.#track(event);
      this.view?.onEvent(event);
    }
    if (this.#firstBatch) {
      this.#firstBatch = false;
      this.#connected.resolve();
    }
    this.#notify();
    this.options.afterBatch?.();
  }

  #track(event: SessionEvent): void {
    switch (event.type) {
      case "status":
        this.status = { ...event.data };
        return;
      case "input":
        this.#turns.inputSeen(event.data.input);
        this.#notify();
        return;
      case "usage":
        this.model = event.data.model;
        addUsage(this.sessionUsage, event.data);
        this.#turns.usageSeen(event.data);
        return;
      case "error":
        this.#turns.errorSeen(event.data);
        return;
      case "turn_completed":
        this.#turns.turnCompleted(event.data);
        return;
      case "text":
      case "thinking":
      case "message":
      case "tool":
      case "retry":
      case "committed":
      case "approval_requested":
      case "approval_resolved":
      case "compaction_started":
      case "compaction_completed":
      case "compaction_failed":
      case "task_started":
      case "task_completed":
        return;
      default:
        unreachable(event, "unhandled stream event");
    }
  }

  /** Take status, model and usage from a snapshot (e.g. the one a new session was created with). */
  seed(snapshot: SessionSnapshot): void {
    this.status = {
      phase: snapshot.status.phase,
      run_id: snapshot.status.run_id,
      interrupt_requested: snapshot.status.interrupt_requested,
    };
    this.model = snapshot.model;
    Object.assign(this.sessionUsage, {
      prompt: snapshot.usage.prompt_tokens,
      completion: snapshot.usage.completion_tokens,
      cached: snapshot.usage.cached_prompt_tokens,
      total: snapshot.usage.total_tokens,
    });
    this.pendingInputs.clear();
    for (const input of snapshot.pending_inputs) this.pendingInputs.add(input.id);
  }

  async #reset(reason: string, snapshot: SessionSnapshot): Promise<void> {
    this.#turns.resetSeen();
    this.seed(snapshot);
    const items = snapshot.history.items;
    if (this.#firstBatch && reason === "initial") {
      if (this.options.initialHistory === "skip" || this.view === null) {
        this.view?.markKnown(items);
        return;
      }
      if (snapshot.history.older !== null) {
        this.view.notice(`… earlier history: skein show ${this.sessionId.slice(0, 13)}`);
      }
      this.view.renderEntries(items);
      return;
    }
    const entries = await this.#withMissedEntries(items, snapshot.history.older);
    this.view?.applyReset(
      entries,
      snapshot.status.run_id,
      reason === "generation_changed"
        ? "— reconnected: the daemon or session restarted; continuing from its saved history"
        : "— fell behind the live stream; continuing from the saved history",
    );
    await this.#resyncAwaited(snapshot.status.run_id);
  }

  /** Prepend the entries between the last one seen and the snapshot's tail (paging back). */
  async #withMissedEntries(items: HistoryEntry[], older: string | null): Promise<HistoryEntry[]> {
    const view = this.view;
    if (view === null || items.length === 0 || view.knows(items[0]!.id) || older === null) return items;
    const limit = this.options.tail === undefined || this.options.tail === 0 ? 100 : this.options.tail;
    const pages: HistoryEntry[][] = [];
    let token: string | null = older;
    for (let page = 0; page < 50 && token !== null; page++) {
      const answer = await this.client.history(this.sessionId, { limit, next: token });
      pages.unshift(answer.items);
      if (answer.items.some((entry) => view.knows(entry.id))) break;
      token = answer.older;
    }
    return [...pages.flat(), ...items];
  }

  /** After a restart: look up how awaited inputs fared; an abandoned turn continues in the recovery turn. */
  async #resyncAwaited(runningTurnId: string | null): Promise<void> {
    for (const inputId of this.#awaited) {
      if (this.outcomeOf(inputId) !== null) continue;
      const receipt = await this.client.getInput(this.sessionId, inputId);
      this.noteReceipt(receipt);
      this.#turns.followAbandoned(receipt.turn, runningTurnId);
    }
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}
