/**
 * Whose turn it is to write a SQLite database's write-ahead log: the main connection's commits or
 * the checkpoint worker's restart of the log (see wal-checkpointer.ts). One 32-bit word in shared
 * memory, taken with a compare-and-swap, so neither side ever waits on SQLite's own write lock:
 * the worker takes its turn only while no commit runs (and gives it back at once), and a commit
 * that finds the worker's turn waits for it without blocking the event loop, instead of sleeping
 * in SQLite's busy handler on the main thread.
 *
 * Boundary rule: the worker's side is written out in the worker's source (it cannot import this
 * module); both follow the states below.
 */

/** No one writes. */
const FREE = 0;
/** A commit on the main connection runs. */
const COMMITTING = 1;
/** The worker starts a new log. */
export const RESTARTING = 2;

/** `Atomics.waitAsync` (Node.js 16 on), which the compiler's ES2022 library lacks. */
type WaitAsync = (
  word: Int32Array,
  index: number,
  value: number,
) => { async: false; value: "not-equal" | "timed-out" } | { async: true; value: Promise<"ok" | "timed-out"> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

export class LogWriteTurn {
  /** Shared with the worker thread (see the states above). */
  readonly buffer = new SharedArrayBuffer(4);
  readonly #word = new Int32Array(this.buffer);

  /**
   * Take the turn for a commit: null when taken (give it back with `release`), else a promise
   * that resolves once the worker gave its turn back (then try again).
   */
  acquire(): Promise<void> | null {
    if (Atomics.compareExchange(this.#word, 0, FREE, COMMITTING) !== RESTARTING) return null;
    const waited = waitAsync(this.#word, 0, RESTARTING);
    return waited.async ? waited.value.then(() => undefined) : Promise.resolve();
  }

  /** The commit ended (the worker may be waiting for its turn). */
  release(): void {
    Atomics.store(this.#word, 0, FREE);
    Atomics.notify(this.#word, 0);
  }

  /** The worker is gone: whatever turn it held is free. */
  reset(): void {
    Atomics.store(this.#word, 0, FREE);
    Atomics.notify(this.#word, 0);
  }
}
