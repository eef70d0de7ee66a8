/**
 * "waiting for the model… 12 s" while a turn runs and nothing arrives, so a slow or stalled
 * provider never looks like a hung terminal.
 *
 * Boundary rule: rendering only, on the aside stream (stderr). On a terminal it is one line
 * redrawn in place, cleared before any other output and drawn only where no output line is left
 * open; elsewhere (a log file, CI) it prints one plain line per `noticeEveryMs` of silence.
 */
import type { OutputStream } from "./terminal.js";

export interface WaitingLineOptions {
  /** Silence before the line appears (terminal). */
  delayMs?: number;
  /** Silence after which the line says the provider may be stalled, and the plain notice interval. */
  noticeEveryMs?: number;
  /** Redraw interval (terminal). */
  tickMs?: number;
  now?: () => number;
}

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** The waiting indicator of one command; `start` it, feed it activity, `stop` it. */
export class WaitingLine {
  readonly #output: OutputStream;
  readonly #delayMs: number;
  readonly #noticeEveryMs: number;
  readonly #tickMs: number;
  readonly #now: () => number;
  #since = 0;
  #label = "waiting for the model";
  #lineOpen = false;
  #drawn = false;
  #notices = 0;
  #frame = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(output: OutputStream, options: WaitingLineOptions = {}) {
    this.#output = output;
    this.#delayMs = options.delayMs ?? 1_000;
    this.#noticeEveryMs = options.noticeEveryMs ?? 30_000;
    this.#tickMs = options.tickMs ?? 100;
    this.#now = options.now ?? Date.now;
  }

  /** Start the clock (idempotent). */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#since = this.#now();
    this.#timer = setInterval(() => this.#tick(), this.#output.tty ? this.#tickMs : 1_000);
    this.#timer.unref();
  }

  /** Something arrived from the daemon: the silence starts again, with what is now awaited. */
  activity(label: string = this.#label): void {
    this.#label = label;
    this.#since = this.#now();
    this.#notices = 0;
    if (this.#drawn) this.#draw();
  }

  /** Output is about to be written: step aside. */
  before(): void {
    this.#clear();
  }

  /** Output was written; `lineOpen` when it left a line unfinished (nothing may be drawn after it). */
  after(lineOpen: boolean): void {
    this.#lineOpen = lineOpen;
    this.#since = this.#now();
    this.#notices = 0;
  }

  /** Clear the line and stop. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#clear();
  }

  #tick(): void {
    const silence = this.#now() - this.#since;
    if (!this.#output.tty) {
      if (silence < (this.#notices + 1) * this.#noticeEveryMs) return;
      this.#notices += 1;
      this.#output.stream.write(
        `skein: ${this.#label}: nothing received for ${Math.round(silence / 1000)} s (Ctrl-C interrupts)\n`,
      );
      return;
    }
    if (silence < this.#delayMs || this.#lineOpen) return;
    this.#draw();
  }

  #draw(): void {
    const silence = this.#now() - this.#since;
    this.#frame = (this.#frame + 1) % frames.length;
    const stalled =
      silence >= this.#noticeEveryMs
        ? " — nothing received yet; the provider may be stalled (Ctrl-C interrupts)"
        : "";
    const text = `${frames[this.#frame]} ${this.#label}… ${Math.floor(silence / 1000)} s${stalled}`;
    this.#output.stream.write(
      `\r\x1b[2K${this.#output.paint.dim(text.slice(0, Math.max(20, this.#output.columns - 1)))}`,
    );
    this.#drawn = true;
  }

  #clear(): void {
    if (!this.#drawn) return;
    this.#output.stream.write("\r\x1b[2K");
    this.#drawn = false;
  }
}
