/**
 * The retry of what a storage failure held back (a turn's start or its end): one at a time,
 * after a delay that grows with each failure in a row and starts over once a write goes
 * through. A storage failure is so waited out, never a crash.
 */

/** Waits between attempts to write what a storage failure held back (a turn's end or start). */
export const storageRetryDelaysMs: readonly number[] = [250, 500, 1_000, 2_000, 5_000];

export class StorageRetry {
  /** Whether the owner stopped (a retry due then does not run). */
  readonly #halted: () => boolean;
  #failures = 0;
  #timer: NodeJS.Timeout | null = null;

  constructor(halted: () => boolean) {
    this.#halted = halted;
  }

  /** Whether a retry waits to run. */
  get pending(): boolean {
    return this.#timer !== null;
  }

  /** A write went through: the next failure waits the shortest delay again. */
  succeeded(): void {
    this.#failures = 0;
  }

  /** Run `attempt` again after a growing delay (the storage may have room again by then); it replaces a retry that waits. */
  schedule(attempt: () => void): void {
    const delay = storageRetryDelaysMs[Math.min(this.#failures, storageRetryDelaysMs.length - 1)]!;
    this.#failures++;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (!this.#halted()) attempt();
    }, delay);
    this.#timer.unref();
  }

  /** The owner is gone: no more retries. */
  dispose(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
