/**
 * The Worker, the library's agent: two faces over one state. `Worker` is the mutable face:
 * configure tools, prompt, interceptor, observer and history, then `lock()` to run. One Worker
 * object lives for the whole life of its state; `lock()` hands out a `LockedWorker` over the same
 * state, which can run, resume, cancel and be unlocked, and nothing else: no mutators, so the
 * prompt prefix (system prompt, tools, history[0..lockedPrefixLen]) stays byte-stable for provider
 * caches and the compiler says so. `unlock()` gives the Worker back.
 *
 * Boundary rule: every mutator checks the lock at run time too (a cast cannot get around it) and
 * throws WorkerStateError kind "locked"; a LockedWorker from an earlier lock is stale and refuses
 * to work. Request config is settable only on the Worker, to keep one rule.
 */
import type { Item } from "../model/items.js";
import type { LlmClient } from "../model/llm-client.js";
import type { RequestConfig } from "../model/request-config.js";
import type { ToolDefinition, ToolMeta } from "../model/tools.js";
import type { MemoryConversation } from "./conversation.js";
import { WorkerStateError } from "./errors.js";
import type { Interceptor } from "./interceptor.js";
import type { WorkerObserver } from "./observer.js";
import type { WorkerResult } from "./result.js";
import { WorkerRun } from "./run.js";
import { WorkerCore } from "./worker-core.js";

export interface WorkerOptions {
  interceptor?: Interceptor;
  observer?: WorkerObserver;
  /**
   * A clock in milliseconds (e.g. `() => performance.now()`): with one, every reasoning item the
   * model streams records how long it took (`duration_ms`: from the response's first event, or
   * the end of the output before it, to the end of its block; see response-collector.ts).
   */
  clock?: () => number;
}

export class Worker {
  readonly #core: WorkerCore;

  constructor(client: LlmClient, options: WorkerOptions = {}) {
    this.#core = new WorkerCore(
      client,
      options.interceptor ?? {},
      options.observer ?? {},
      options.clock ?? null,
    );
  }

  get client(): LlmClient {
    return this.#core.client;
  }

  get systemPrompt(): string | null {
    return this.#core.systemPrompt;
  }

  /** Sets (or with null, removes) the system prompt. */
  setSystemPrompt(prompt: string | null): void {
    this.#assertMutable("setSystemPrompt");
    this.#core.systemPrompt = prompt;
  }

  /** Queues a tool; its factory runs at `lock()`, which throws DuplicateToolNameError on a clash. */
  registerTool(definition: ToolDefinition): void {
    this.#assertMutable("registerTool");
    this.#core.tools.register(definition);
  }

  /** Materialised tools (those registered before the last `lock()`), sorted by name. */
  get tools(): readonly ToolMeta[] {
    return this.#core.tools.metas();
  }

  /** Replaces the interceptor (pass `{}` for none). */
  setInterceptor(interceptor: Interceptor): void {
    this.#assertMutable("setInterceptor");
    this.#core.interceptor = interceptor;
  }

  /** Replaces the observer (pass `{}` for none). */
  setObserver(observer: WorkerObserver): void {
    this.#assertMutable("setObserver");
    this.#core.observer = observer;
  }

  /** Replaces the request config (copied). */
  setRequestConfig(config: RequestConfig): void {
    this.#assertMutable("setRequestConfig");
    this.#core.requestConfig = structuredClone(config);
  }

  get requestConfig(): Readonly<RequestConfig> {
    return this.#core.requestConfig;
  }

  get history(): readonly Item[] {
    return this.#core.conversation.items;
  }

  /** Replaces the whole history (copied), e.g. when restoring a session. */
  setHistory(items: readonly Item[]): void {
    this.#assertMutable("setHistory");
    this.#memory().replace(items);
  }

  /** Appends one item to history. */
  pushItem(item: Item): void {
    this.#assertMutable("pushItem");
    this.#memory().push(item);
  }

  /** LLM request/response cycles so far, cumulative over the Worker's life. */
  get requestCount(): number {
    return this.#core.requestCount;
  }

  /** Restores the request count. */
  setRequestCount(count: number): void {
    this.#assertMutable("setRequestCount");
    if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`Invalid request count: ${count}`);
    this.#core.requestCount = count;
  }

  get maxRequests(): number | null {
    return this.#core.maxRequests;
  }

  /** Caps the cumulative request count (checked after each tool batch); null means unlimited. */
  setMaxRequests(limit: number | null): void {
    this.#assertMutable("setMaxRequests");
    if (limit !== null && (!Number.isSafeInteger(limit) || limit < 1)) {
      throw new RangeError(`Invalid request limit: ${limit}`);
    }
    this.#core.maxRequests = limit;
  }

  /** Whether the last run/resume stopped short of a clean end, so `resume()` is meaningful. */
  get lastRunInterrupted(): boolean {
    return this.#core.lastRunInterrupted;
  }

  /** Restores the interrupted flag. */
  setLastRunInterrupted(interrupted: boolean): void {
    this.#assertMutable("setLastRunInterrupted");
    this.#core.lastRunInterrupted = interrupted;
  }

  get isLocked(): boolean {
    return this.#core.locked;
  }

  /**
   * Materialises queued tools (throws DuplicateToolNameError on a clash, leaving the Worker
   * unlocked) and records the current history length as the locked prefix.
   */
  lock(): LockedWorker {
    this.#assertMutable("lock");
    const core = this.#core;
    core.tools.materialise();
    core.locked = true;
    core.lockGeneration += 1;
    core.lockedPrefixLen = core.conversation.items.length;
    return new LockedWorker(core, core.lockGeneration, () => this);
  }

  /** The Worker's own in-memory conversation (a Worker never runs on anyone else's). */
  #memory(): MemoryConversation {
    return this.#core.conversation as MemoryConversation;
  }

  #assertMutable(operation: string): void {
    if (this.#core.locked) throw new WorkerStateError("locked", operation);
  }
}

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
