/**
 * The chat's status line while a turn runs (drawn above the prompt by the line editor): what
 * the turn does, how long it has run, "waiting for the model…" when nothing has arrived for a
 * while, and the tokens used so far. It is also the transcript view's busy indicator.
 *
 * Boundary rule: composes the line and ticks it; where it is drawn is the sink's business.
 */
import type { BusyIndicator } from "./transcript-view-options.js";

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/** Silence after which the line says the model is being waited for. */
const quietMs = 3_000;
const tickMs = 120;
const thinking = "thinking…";

export interface TurnStatusSink {
  setStatus(status: string | null): void;
}

/** A ticking status line from the start of a turn to its end. */
export class TurnStatus implements BusyIndicator {
  #startedAt = 0;
  #lastActivity = 0;
  #busy: string | null = null;
  #timer: NodeJS.Timeout | null = null;
  #frame = 0;

  constructor(
    private readonly sink: TurnStatusSink,
    /** Tokens to show (e.g. "1.2k tokens · 14% of context"), or null. */
    private readonly usage: () => string | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** The turn started. */
  begin(): void {
    this.#startedAt = this.now();
    this.#lastActivity = this.#startedAt;
    this.#busy = thinking;
    this.#timer ??= setInterval(() => this.#tick(), tickMs);
    this.#timer.unref();
    this.#tick();
  }

  /** Output arrived (the "waiting" clock starts again). */
  activity(): void {
    this.#lastActivity = this.now();
  }

  /** The turn ended: the line goes away. */
  end(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#busy = null;
    this.sink.setStatus(null);
  }

  start(text: string): void {
    this.#busy = text;
    this.activity();
  }

  stop(): void {
    this.#busy = null;
    this.activity();
  }

  /** The line as it reads now (null outside a turn). */
  line(): string | null {
    if (this.#timer === null) return null;
    const now = this.now();
    const quiet = now - this.#lastActivity;
    const parts = [`${frames[this.#frame % frames.length]} ${this.#busy ?? "responding…"}`];
    // A running tool or an interrupt is not the model's silence.
    const modelsTurn = this.#busy === null || this.#busy === thinking;
    if (modelsTurn && quiet >= quietMs) parts.push(`waiting for the model… ${Math.floor(quiet / 1000)} s`);
    parts.push(seconds(now - this.#startedAt));
    const usage = this.usage();
    if (usage !== null) parts.push(usage);
    parts.push("Ctrl-C interrupts");
    return parts.join(" · ");
  }

  #tick(): void {
    this.#frame += 1;
    this.sink.setStatus(this.line());
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
