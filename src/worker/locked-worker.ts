/**
 * The locked face of a Worker: it can run, resume, cancel and be unlocked, and nothing else.
 *
 * Boundary rule: no mutators on this type (no registerTool, setSystemPrompt, setHistory, ...), so
 * the prompt prefix (system prompt, tools, history[0..lockedPrefixLen]) stays byte-stable for
 * provider caches and the compiler says so. Request config is deliberately not settable here
 * either (the seed allowed it while locked); to keep one rule, every setter lives on Worker.
 * A handle from an earlier lock is stale and refuses to work.
 */
import type { Item } from "../model/items.js";
import type { RequestConfig } from "../model/request-config.js";
import type { ToolMeta } from "../model/tools.js";
import { WorkerStateError } from "./errors.js";
import type { WorkerResult } from "./result.js";
import { WorkerRun } from "./run.js";
import type { Worker } from "./worker.js";
import type { WorkerCore } from "./worker-core.js";

/** Per-run options. */
export interface RunOptions {
  /** Aborting it cancels the run, like `LockedWorker.cancel()`. */
  signal?: AbortSignal;
}

export class LockedWorker {
  readonly #core: WorkerCore;
  readonly #generation: number;
  readonly #unlocked: () => Worker;

  /** Made by `Worker.lock()`; not meant to be constructed directly. */
  constructor(core: WorkerCore, generation: number, unlocked: () => Worker) {
    this.#core = core;
    this.#generation = generation;
    this.#unlocked = unlocked;
  }

  /**
   * Adds `input` as a user message and runs the request loop until the model answers without tool
   * calls (or a pause, yield, limit or failure). Tool calls an interrupted run left pending get
   * an is_error "not run" result first. Rejects with WorkerError on failure.
   */
  async run(input: string, options: RunOptions = {}): Promise<WorkerResult> {
    const run = this.#beginRun("run", options);
    try {
      return await run.start(input);
    } finally {
      this.#core.activeRun = null;
    }
  }

  /** Goes on after a pause, yield or failure: executes pending tool calls, then the request loop. */
  async resume(options: RunOptions = {}): Promise<WorkerResult> {
    const run = this.#beginRun("resume", options);
    try {
      return await run.resume();
    } finally {
      this.#core.activeRun = null;
    }
  }

  /** Cancels the run in progress, if any. A cancel with no run in progress is not remembered. */
  cancel(reason?: string): void {
    if (this.#isCurrent()) this.#core.activeRun?.cancel(reason);
  }

  /** Ends the lock and returns the mutable Worker (the same object that was locked). */
  unlock(): Worker {
    this.#assertCurrent("unlock");
    if (this.#core.activeRun !== null) throw new WorkerStateError("busy", "unlock");
    this.#core.locked = false;
    this.#core.lockedPrefixLen = 0;
    return this.#unlocked();
  }

  /** How many history items existed at `lock()`: the prefix a provider cache can reuse. */
  get lockedPrefixLen(): number {
    return this.#core.lockedPrefixLen;
  }

  get lastRunInterrupted(): boolean {
    return this.#core.lastRunInterrupted;
  }

  get history(): readonly Item[] {
    return this.#core.conversation.items;
  }

  get requestCount(): number {
    return this.#core.requestCount;
  }

  get systemPrompt(): string | null {
    return this.#core.systemPrompt;
  }

  get requestConfig(): Readonly<RequestConfig> {
    return this.#core.requestConfig;
  }

  /** The tools sent with every request, sorted by name. */
  get tools(): readonly ToolMeta[] {
    return this.#core.tools.metas();
  }

  get isRunning(): boolean {
    return this.#core.activeRun !== null;
  }

  #beginRun(operation: string, options: RunOptions): WorkerRun {
    this.#assertCurrent(operation);
    if (this.#core.activeRun !== null) throw new WorkerStateError("busy", operation);
    const run = new WorkerRun(this.#core, options.signal);
    this.#core.activeRun = run;
    return run;
  }

  #isCurrent(): boolean {
    return this.#core.locked && this.#core.lockGeneration === this.#generation;
  }

  #assertCurrent(operation: string): void {
    if (!this.#isCurrent()) throw new WorkerStateError("not_locked", operation);
  }
}
