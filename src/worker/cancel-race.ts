/**
 * Races the steps of a run against its cancellation: a step waited on through `until` rejects
 * with the run's cancellation error as soon as the run's signal aborts, even when the work
 * behind it (a stream, a tool) ignores the signal.
 *
 * Boundary rule: state for one run's lifetime; what a cancellation error is, the run decides.
 */
export class CancelRace {
  readonly #signal: AbortSignal;
  readonly #cancellation: () => unknown;
  /** The rejecters of the steps waiting in `until`; an abort rejects them all. */
  readonly #waiting = new Set<(reason: unknown) => void>();
  #listening = false;

  constructor(signal: AbortSignal, cancellation: () => unknown) {
    this.#signal = signal;
    this.#cancellation = cancellation;
  }

  /** `work`, or the cancellation error once the signal aborts, whichever comes first. */
  until<T>(work: Promise<T>): Promise<T> {
    if (this.#signal.aborted) {
      work.catch(() => undefined);
      return Promise.reject(this.#cancellation());
    }
    this.#listen();
    // Not a Promise.race against one shared "cancelled" promise: every race leaves a reaction
    // on that promise until the run ends, and each reaction keeps its step's result alive (for
    // a long answer, every delta event of it). A waiting step is in `waiting` only until it
    // settles, and costs no event-listener bookkeeping (the hot path is one step per chunk).
    return new Promise<T>((resolve, reject) => {
      this.#waiting.add(reject);
      work.then(
        (value) => {
          this.#waiting.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.#waiting.delete(reject);
          reject(error);
        },
      );
    });
  }

  #listen(): void {
    if (this.#listening) return;
    this.#listening = true;
    this.#signal.addEventListener(
      "abort",
      () => {
        const rejects = [...this.#waiting];
        this.#waiting.clear();
        for (const reject of rejects) reject(this.#cancellation());
      },
      { once: true },
    );
  }
}
