/**
 * Following one of the daemon's event streams with the browser's own EventSource.
 *
 * Every frame's SSE `id` is `<generation>.<cursor>`. While the EventSource reconnects by itself
 * (a dropped connection, a daemon restart on the same port) it sends that id as
 * `Last-Event-ID`, and the daemon replays exactly what was missed or starts over with a reset
 * and a snapshot. When the browser gives up (it does after an error answer), a new
 * EventSource resumes from the last id with `after_generation`/`after_seq`. Either way the
 * caller sees frames, and the state of the connection to show ("reconnecting…").
 */

/** Where the connection stands. */
export type ConnectionState = "connecting" | "live" | "reconnecting";

export interface EventStreamOptions {
  /** The stream's path with its own query (e.g. `/sessions/ID?tail=100`), without a cursor. */
  path: string;
  /** Each frame's `data` text, in order. */
  onFrame(data: string): void;
  onState(state: ConnectionState): void;
}

/** A followed stream: reconnects until closed. */
export class EventStream {
  #source: EventSource | null = null;
  #lastEventId: string | null = null;
  #retryTimer: number | undefined;
  #retryDelayMs = 500;
  #closed = false;

  constructor(private readonly options: EventStreamOptions) {}

  /** Open the first connection. */
  start(): void {
    this.#open();
    this.options.onState("connecting");
  }

  /** Stop following. */
  close(): void {
    this.#closed = true;
    window.clearTimeout(this.#retryTimer);
    this.#source?.close();
    this.#source = null;
  }

  #open(): void {
    const source = new EventSource(this.#url());
    this.#source = source;
    source.onmessage = (event: MessageEvent<string>) => {
      if (this.#closed || source !== this.#source) return;
      if (event.lastEventId !== "") this.#lastEventId = event.lastEventId;
      this.#retryDelayMs = 500;
      this.options.onState("live");
      this.options.onFrame(event.data);
    };
    source.onerror = () => {
      if (this.#closed || source !== this.#source) return;
      this.options.onState("reconnecting");
      // CONNECTING: the browser retries by itself, with Last-Event-ID. CLOSED: it gave up.
      if (source.readyState !== EventSource.CLOSED) return;
      source.close();
      this.#retryTimer = window.setTimeout(() => this.#open(), this.#retryDelayMs);
      this.#retryDelayMs = Math.min(this.#retryDelayMs * 2, 5_000);
    };
  }

  /** The path, resuming after the last frame seen when there was one. */
  #url(): string {
    const id = this.#lastEventId;
    const dot = id === null ? -1 : id.lastIndexOf(".");
    if (id === null || dot <= 0) return this.options.path;
    const query = new URLSearchParams({ after_generation: id.slice(0, dot), after_seq: id.slice(dot + 1) });
    return `${this.options.path}${this.options.path.includes("?") ? "&" : "?"}${query}`;
  }
}
