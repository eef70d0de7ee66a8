/**
 * Graceful shutdown: stop taking work, give running work a bounded time, then exit.
 *
 * Boundary rule: this file knows nothing about sessions or HTTP. Whoever starts work (a turn)
 * registers its promise with `track`; `begin(timeoutMs)` switches to draining and resolves when
 * all tracked work has settled or the timeout has passed, whichever comes first. `begin` is
 * idempotent: a second shutdown request (another signal, another POST /server/shutdown) gets the
 * drain already under way instead of starting a second one.
 */

/** ready: taking work; draining: refusing new work, waiting for running work. */
export type DrainState = "ready" | "draining";

/** How a drain ended. */
export interface DrainOutcome {
  /** True when the timeout passed before all tracked work settled. */
  timedOut: boolean;
  /** Tracked work still running when the drain resolved. */
  pending: number;
}

/** Tracks running work and drains it once. */
export class DrainController {
  private readonly running = new Set<Promise<unknown>>();
  private drain: Promise<DrainOutcome> | null = null;
  private settleAll: (() => void) | null = null;

  /** ready until begin() is first called. */
  get state(): DrainState {
    return this.drain === null ? "ready" : "draining";
  }

  /** True once begin() has been called. */
  get draining(): boolean {
    return this.drain !== null;
  }

  /** Number of tracked pieces of work that have not settled. */
  get pending(): number {
    return this.running.size;
  }

  /** Register running work; it counts until it settles (fulfilled or rejected). */
  track(work: Promise<unknown>): void {
    const entry = work.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(entry);
    void entry.then(() => {
      this.running.delete(entry);
      if (this.running.size === 0) this.settleAll?.();
    });
  }

  /** Start draining (once); resolves when tracked work has settled or after timeoutMs. */
  begin(timeoutMs: number): Promise<DrainOutcome> {
    if (this.drain !== null) return this.drain;
    this.drain = new Promise<DrainOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (timedOut: boolean): void => {
        if (timer !== undefined) clearTimeout(timer);
        this.settleAll = null;
        resolve({ timedOut, pending: this.running.size });
      };
      if (this.running.size === 0) {
        finish(false);
        return;
      }
      this.settleAll = () => finish(false);
      timer = setTimeout(() => finish(true), Math.max(0, timeoutMs));
    });
    return this.drain;
  }
}

/** Options for installSignalHandlers. */
export interface SignalHandlerOptions {
  /** Runs once, at the first signal; the process exits 0 when it resolves, 1 when it throws. */
  drain: (signal: NodeJS.Signals) => Promise<void>;
  signals?: readonly NodeJS.Signals[];
  /** Defaults to process.exit. */
  exit?: (code: number) => void;
  /** Reports the signal and any drain failure; defaults to stderr. */
  report?: (message: string) => void;
}

/** Install SIGTERM/SIGINT handlers that drain once and exit; returns an uninstaller. */
export function installSignalHandlers(options: SignalHandlerOptions): () => void {
  const signals = options.signals ?? ["SIGTERM", "SIGINT"];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const report = options.report ?? ((message: string) => process.stderr.write(`${message}\n`));
  let started = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (started) {
      // The drain is bounded by its own timeout; a second signal must not start another.
      report(`received ${signal} while draining; still draining`);
      return;
    }
    started = true;
    report(`received ${signal}; draining`);
    options.drain(signal).then(
      () => exit(0),
      (error: unknown) => {
        report(`drain failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
