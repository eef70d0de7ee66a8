/**
 * The "waiting" spinner, on a TTY only.
 *
 * Boundary rule: wraps nanospinner, loaded on first use so commands that never spin do not
 * pay for it. nanospinner installs SIGINT/SIGTERM handlers that exit the process; they are
 * removed at once, because Ctrl-C means "interrupt the turn" here, not "exit".
 */
import type { OutputStream } from "./terminal.js";

type NanoSpinner = ReturnType<typeof import("nanospinner").createSpinner>;

/** A spinner that may be started and stopped any number of times; a no-op when not on a TTY. */
export class Spinner {
  #spinner: NanoSpinner | null = null;
  #loading: Promise<void> | null = null;
  #wanted: string | null = null;

  /** nanospinner animates only when stdout is a terminal and CI is unset; elsewhere it would print lines. */
  readonly enabled: boolean;

  constructor(
    private readonly output: OutputStream,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.enabled = output.tty && output.stream === process.stdout && !("CI" in env);
  }

  /** Whether it is showing (or about to). */
  get active(): boolean {
    return this.#wanted !== null;
  }

  /** Show the spinner with `text` (or change its text). */
  start(text: string): void {
    if (!this.enabled) return;
    this.#wanted = text;
    if (this.#spinner !== null) {
      if (this.#spinner.isSpinning()) this.#spinner.update({ text });
      else this.#startNow(text);
      return;
    }
    this.#loading ??= import("nanospinner").then((module) => {
      this.#spinner = module.createSpinner("", {
        stream: this.output.stream as NodeJS.WriteStream,
        color: "cyan",
      });
      if (this.#wanted !== null) this.#startNow(this.#wanted);
    });
  }

  /** Remove the spinner from the screen. */
  stop(): void {
    this.#wanted = null;
    // Without arguments nanospinner clears its line and shows the cursor again.
    if (this.#spinner?.isSpinning() === true) this.#spinner.stop();
  }

  #startNow(text: string): void {
    const before = new Set([...process.listeners("SIGINT"), ...process.listeners("SIGTERM")]);
    this.#spinner?.start({ text });
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      for (const listener of process.listeners(signal))
        if (!before.has(listener)) process.off(signal, listener);
    }
  }
}
