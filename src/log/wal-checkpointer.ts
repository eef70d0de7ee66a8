/**
 * SQLite checkpoints (copying the write-ahead log back into the database file, an fsync of each)
 * on a worker thread with a connection of its own, so that they never stall the event loop the
 * way SQLite's automatic checkpoint would: that one runs inside whichever commit crosses 1,000
 * pages of log. The main connection turns automatic checkpoints off (`wal_autocheckpoint = 0`)
 * and calls `written()` after its commits; the worker checkpoints at most once per interval.
 *
 * Restarting the log (`restartsLog`). Once a checkpoint has copied the whole log (and synced the
 * database file), the next write starts the log over: new salts, a new header at offset 0, new
 * frames over the old ones. SQLite fsyncs that header before it writes any frame, even at
 * synchronous=NORMAL (only OFF skips it): the kernel writes dirty pages back in any order, and
 * were a later page of the new log on disk but not the one holding the header, a power loss
 * would leave the old header valid over an intact prefix of old frames; recovery would replay
 * it, older versions of pages the database file holds newer, taking back acknowledged commits.
 * So the owner cannot skip that fsync with OFF, though wal-sync.ts flushes the new header and
 * frames before anyone is told: the harm is to older commits, before that flush. Instead the
 * worker starts the next log itself, in a transaction of its own that rewrites page 1 unchanged
 * (the header's fsync on its thread), in its turn of the log (log-write-turn.ts): the owner's
 * commits wait for that turn without blocking the event loop, and the next one appends. The
 * worker reads the log (a second connection) through its checkpoint and until it has the turn:
 * a commit that finds the log all copied while someone reads it appends instead of restarting,
 * so no commit of the owner's starts a log in that gap. With the turn it checkpoints again (what
 * commits appended meanwhile, usually nothing) and restarts. A write off the owner's commit
 * queue is not held back by the turn: it may start a log itself, synced as before, or wait
 * (busy timeout, on its thread, in the busy handler's sleeps of 1, 2, 5, 10 ms…: longer than the
 * fsync) for the restart's one fsync; who writes first changes where the fsync runs, never what
 * is safe.
 *
 * Boundary rule: PASSIVE checkpoints only, so the worker never waits for a reader or the writer,
 * nor holds SQLite's write lock while a commit wants it; what it cannot copy now it copies next
 * time. Its one write, the restart, runs only in its turn and gives up rather than wait for the
 * write lock; the owner's commits wait for that turn alone (the second checkpoint, usually
 * empty, and the header's fsync), asynchronously. The worker runs a few lines of CommonJS given
 * as source (no file of its own, so the bundled daemon needs no second entry), loading
 * better-sqlite3 from where this module resolves it. It costs ~9 MB of memory (a second
 * connection when it restarts logs), so it starts with the first write and stops after a while
 * without any. A worker that dies on its own (it could not open the database, say) is not
 * restarted: `onDead` lets the owner hand checkpoints back to SQLite's automatic ones.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { LogWriteTurn } from "./log-write-turn.js";

const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 5000");
// Checkpoints sync the same at NORMAL as at FULL; a restart syncs the new header at NORMAL too,
// and its one frame needs no sync of its own.
db.pragma("synchronous = NORMAL");
// log-write-turn.ts's word: 0 free, 1 a commit runs on the main connection, 2 a restart runs here.
const turn = workerData.turn === null ? null : new Int32Array(workerData.turn);
// A reader of the log: while it reads, a commit that finds the log all copied appends to it
// instead of starting the next one (SQLite restarts a log only when no one reads it).
const pin = turn === null ? null : new Database(workerData.path);
const pinRead = pin === null ? null : pin.prepare("SELECT 1 FROM sqlite_schema LIMIT 1");
function checkpoint() {
  const result = db.pragma("wal_checkpoint(PASSIVE)")[0];
  return result.log > 0 && result.checkpointed === result.log;
}
function takeTurn() {
  // A commit takes well under a millisecond: wait for the one running (this thread may block).
  for (let i = 0; i < 100; i++) {
    const was = Atomics.compareExchange(turn, 0, 0, 2);
    if (was === 0) return true;
    Atomics.wait(turn, 0, was, 1);
  }
  return false;
}
function restartLog() {
  // A lock held anyway is a write off the commit queue: its commit starts the log instead.
  db.pragma("busy_timeout = 0");
  try {
    db.exec("BEGIN IMMEDIATE");
    try {
      // The same value again: page 1 becomes the new log's first frame, nothing changes.
      const id = db.pragma("application_id", { simple: true });
      db.pragma("application_id = " + Number(id));
      db.exec("COMMIT");
      return true;
    } finally {
      if (db.inTransaction) db.exec("ROLLBACK");
    }
  } catch (error) {
    if (error && error.code === "SQLITE_BUSY") return false;
    throw error;
  } finally {
    db.pragma("busy_timeout = 5000");
  }
}
function checkpointAndRestart() {
  // Once taken, the turn is given back whatever throws after (the pin's COMMIT included).
  let held = false;
  try {
    pin.exec("BEGIN");
    try {
      pinRead.get();
      if (!checkpoint()) return false;
      held = takeTurn();
      if (!held) return false;
    } finally {
      pin.exec("COMMIT");
    }
    // What commits appended since the first checkpoint; then no commit runs until the restart.
    return checkpoint() && restartLog();
  } finally {
    if (held) {
      Atomics.store(turn, 0, 0);
      Atomics.notify(turn, 0);
    }
  }
}
parentPort.on("message", (message) => {
  if (message === "close") {
    db.close();
    if (pin !== null) pin.close();
    parentPort.close();
    return;
  }
  try {
    if (turn === null) checkpoint();
    parentPort.postMessage({ restarted: turn !== null && checkpointAndRestart() });
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
  /**
   * After a checkpoint that copied the whole log, the worker starts the next log itself, in its
   * turn, so that the header's fsync runs on its thread instead of inside the owner's next commit.
   * The owner's commits take their turns from the same `LogWriteTurn`.
   */
  restartsLog?: LogWriteTurn;
}

/** What the worker answers after a checkpoint: whether it started a new log, or what failed. */
interface WorkerReply {
  restarted?: boolean;
  error?: string;
}

export class WalCheckpointer {
  readonly #path: string;
  readonly #intervalMs: number;
  readonly #idleStopMs: number;
  readonly #onError: (message: string) => void;
  readonly #onDead: () => void;
  readonly #turn: LogWriteTurn | null;
  #worker: Worker | null = null;
  #dirty = false;
  #running = false;
  #timer: NodeJS.Timeout | null = null;
  #idleTimer: NodeJS.Timeout | null = null;
  #closed = false;
  #dead = false;
  #checkpoints = 0;
  #restarts = 0;
  #settled: Array<() => void> = [];
  /** Resolves once every worker told to stop has exited. */
  #stopped: Promise<void> = Promise.resolve();

  /** A checkpointer for the database at `path` (in WAL mode). */
  constructor(path: string, options: WalCheckpointerOptions = {}) {
    this.#path = path;
    this.#intervalMs = options.intervalMs ?? 1_000;
    this.#idleStopMs = options.idleStopMs ?? 30_000;
    this.#onError = options.onError ?? (() => undefined);
    this.#onDead = options.onDead ?? (() => undefined);
    this.#turn = options.restartsLog ?? null;
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

  /** Logs the worker started so far (see `restartsLog`). */
  get restarts(): number {
    return this.#restarts;
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
    // Closed: a checkpoint scheduled while the last one ran (close waits for it) starts nothing.
    if (this.#dead || this.#closed) return null;
    if (this.#worker !== null) return this.#worker;
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: { path: this.#path, driver, turn: this.#turn?.buffer ?? null },
      resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 },
    });
    // An idle checkpointer must not keep the process alive (it is referenced while it works).
    worker.unref();
    worker.on("message", (reply: WorkerReply) => {
      if (reply.restarted === true) this.#restarts++;
      this.#finished(reply.error);
    });
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
    this.#turn?.reset();
    for (const settled of this.#settled.splice(0)) settled();
    if (this.#closed) return;
    this.#dead = true;
    this.#clearTimers();
    this.#onDead();
  }

  async #stopWorker(): Promise<void> {
    const worker = this.#worker;
    // Whatever is stopping already (after a while without writes): a close waits for that too.
    if (worker === null) return this.#stopped;
    // A write from now on starts a new worker; this one's exit is expected.
    this.#worker = null;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    this.#stopped = Promise.all([this.#stopped, exited]).then(() => undefined);
    // Referenced again: a process with nothing else to do would otherwise exit before the
    // worker closes its connection, and whoever awaits this close would never resume.
    worker.ref();
    worker.postMessage("close");
    await this.#stopped;
  }

  #clearTimers(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    if (this.#idleTimer !== null) clearTimeout(this.#idleTimer);
    this.#timer = null;
    this.#idleTimer = null;
  }
}
