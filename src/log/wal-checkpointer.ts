/**
 * SQLite checkpoints (copying the write-ahead log back into the database file, an fsync of each)
 * on a worker thread with a connection of its own, so that they never stall the event loop the
 * way SQLite's automatic checkpoint would: that one runs inside whichever commit crosses 1,000
 * pages of log. The main connection turns automatic checkpoints off (`wal_autocheckpoint = 0`)
 * and calls `written()` after its commits; the worker checkpoints at most once per interval.
 *
 * Boundary rule: PASSIVE checkpoints only, so the worker never waits for (or blocks) a reader or
 * the writer; what it cannot copy now it copies next time. The worker runs a few lines of
 * CommonJS given as source (no file of its own, so the bundled daemon needs no second entry),
 * loading better-sqlite3 from where this module resolves it. It costs ~9 MB of memory, so it
 * starts with the first write and stops after a while without any. A worker that dies on its
 * own (it could not open the database, say) is not restarted: `onDead` lets the owner hand
 * checkpoints back to SQLite's automatic ones.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 5000");
db.pragma("synchronous = FULL");
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
    parentPort.postMessage({});
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message ? error.message : error) });
  }
});
`;

export interface WalCheckpointerOptions {
  /** At most one checkpoint per this many ms (default 1,000). */
  intervalMs?: number;
  /** The worker stops after this many ms without writes (default 30,000). */
  idleStopMs?: number;
  /** A checkpoint failed (the next one tries again), or the worker died. */
  onError?: (message: string) => void;
  /** The worker died on its own: nothing more is checkpointed. */
  onDead?: () => void;
}

export class WalCheckpointer {
  readonly #path: string;
  readonly #intervalMs: number;
  readonly #idleStopMs: number;
  readonly #onError: (message: string) => void;
  readonly #onDead: () => void;
  #worker: Worker | null = null;
  #dirty = false;
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  #idleTimer: NodeJS.Timeout | null = null;
  #closed = false;
  #dead = false;
  #checkpoints = 0;
  #settled: Array<() => void> = [];

  /** A checkpointer for the database at `path` (in WAL mode). */
  constructor(path: string, options: WalCheckpointerOptions = {}) {
    this.#path = path;
    this.#intervalMs = options.intervalMs ?? 1_000;
    this.#idleStopMs = options.idleStopMs ?? 30_000;
    this.#onError = options.onError ?? (() => undefined);
    this.#onDead = options.onDead ?? (() => undefined);
  }

  /** The worker died on its own (see `onDead`). */
  get dead(): boolean {
    return this.#dead;
  }

  /** Whether a worker thread is up now. */
  get workerRunning(): boolean {
    return this.#worker !== null;
  }

  /** Checkpoints run so far. */
  get checkpoints(): number {
    return this.#checkpoints;
  }

  /** The main connection committed: a checkpoint follows within the interval. */
  written(): void {
    if (this.#dead || this.#closed) return;
    this.#dirty = true;
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    if (!this.#running) this.#schedule();
  }

  /** Run a checkpoint now and wait for it (tests, shutdown). */
  checkpointNow(): Promise<void> {
    if (this.#closed || this.#dead) return Promise.resolve();
    return new Promise((resolve) => {
      this.#settled.push(resolve);
      if (!this.#running) this.#start();
    });
  }

  /** Stop for good (after the checkpoint that is running, if any). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#clearTimers();
    if (this.#running) await new Promise<void>((resolve) => this.#settled.push(resolve));
    this.#closed = true;
    await this.#stopWorker();
  }

  #schedule(): void {
    if (this.#timer !== null || this.#closed || this.#dead) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#running) this.#start();
    }, this.#intervalMs);
    this.#timer.unref();
  }

  #start(): void {
    const worker = this.#workerNow();
    if (worker === null) return;
    this.#dirty = false;
    this.#running = true;
    // A checkpoint under way keeps the process alive (one that waits for it must resume).
    worker.ref();
    worker.postMessage("checkpoint");
  }

  #workerNow(): Worker | null {
    if (this.#dead) return null;
    if (this.#worker !== null) return this.#worker;
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: { path: this.#path, driver },
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    // An idle checkpointer must not keep the process alive (it is referenced while it works).
    worker.unref();
    worker.on("message", (message: { error?: string }) => this.#finished(message.error));
    worker.on("error", (error) => this.#onError(error.message));
    worker.on("exit", () => this.#exited(worker));
    this.#worker = worker;
    return worker;
  }

  #finished(error: string | undefined): void {
    this.#running = false;
    this.#worker?.unref();
    this.#checkpoints++;
    if (error !== undefined) this.#onError(error);
    for (const settled of this.#settled.splice(0)) settled();
    if (this.#dirty) this.#schedule();
    else if (!this.#closed && this.#idleTimer === null) {
      this.#idleTimer = setTimeout(() => {
        this.#idleTimer = null;
        if (!this.#running && !this.#dirty) void this.#stopWorker();
      }, this.#idleStopMs);
      this.#idleTimer.unref();
    }
  }

  #exited(worker: Worker): void {
    // A worker that was asked to stop is no longer `#worker`.
    if (this.#worker !== worker) return;
    this.#worker = null;
    this.#running = false;
    for (const settled of this.#settled.splice(0)) settled();
    if (this.#closed) return;
    this.#dead = true;
    this.#clearTimers();
    this.#onDead();
  }

  async #stopWorker(): Promise<void> {
    const worker = this.#worker;
    if (worker === null) return;
    // A write from now on starts a new worker; this one's exit is expected.
    this.#worker = null;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    // Referenced again: a process with nothing else to do would otherwise exit before the
    // worker closes its connection, and whoever awaits this close would never resume.
    worker.ref();
    worker.postMessage("close");
    await exited;
  }

  #clearTimers(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#timer = null;
    this.#idleTimer = null;
  }
}
