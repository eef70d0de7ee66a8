/**
 * The replay window: the newest published events of one feed, bounded by a count and a byte
 * budget, so a client that reconnects within the same generation gets exactly what it missed.
 * A ring buffer with a head index: push and trim are O(1) amortised. The ring starts small and
 * doubles up to `maxEvents` as events arrive, so the many idle sessions that published a few
 * events do not each hold a full-size ring.
 *
 * Boundary rule: holds encoded events only; knows nothing about generations, watchers or I/O.
 */
import type { EncodedEvent } from "./encoded-event.js";

/** Bounds of a replay window. */
export interface ReplayWindowOptions {
  /** Most events kept (default 256). */
  maxEvents?: number;
  /** Most UTF-8 bytes of event JSON kept (default 4 MiB). */
  maxBytes?: number;
}

const DEFAULT_WINDOW_MAX_EVENTS = 256;
const DEFAULT_WINDOW_MAX_BYTES = 4 * 1024 * 1024;

/** Slots of a new ring (it doubles from here as events arrive). */
const initialRingSize = 8;

/** The newest events of a feed, trimmed from the oldest end. */
export class ReplayWindow {
  readonly maxEvents: number;
  readonly maxBytes: number;
  private ring: (EncodedEvent | undefined)[];
  /** Ring index of the oldest held event. */
  private head = 0;
  private count = 0;
  private heldBytes = 0;
  /** The sequence the next pushed event must carry (sequences start at 1). */
  private next = 1;

  constructor(options: ReplayWindowOptions = {}) {
    this.maxEvents = wholeNumber("maxEvents", options.maxEvents ?? DEFAULT_WINDOW_MAX_EVENTS);
    this.maxBytes = wholeNumber("maxBytes", options.maxBytes ?? DEFAULT_WINDOW_MAX_BYTES);
    this.ring = new Array<EncodedEvent | undefined>(Math.min(initialRingSize, this.maxEvents)).fill(
      undefined,
    );
  }

  /** Sequence of the oldest held event; equals newest+1 when the window is empty. */
  get oldest(): number {
    return this.next - this.count;
  }

  /** Sequence of the newest event ever pushed (0 before the first). */
  get newest(): number {
    return this.next - 1;
  }

  /** Number of events held. */
  get size(): number {
    return this.count;
  }

  /** UTF-8 bytes of the events held. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** Appends the next event; sequences must be contiguous. An event over the byte budget empties the window. */
  push(event: EncodedEvent): void {
    if (event.sequence !== this.next) {
      throw new RangeError(`replay window expected sequence ${this.next}, got ${event.sequence}`);
    }
    this.next += 1;
    if (event.bytes > this.maxBytes) {
      // Keeping it would break the byte budget; dropping only it would leave a hole, so
      // everything before it goes too and every cursor before it gets a reset.
      this.clear();
      return;
    }
    if (this.count === this.maxEvents) this.dropOldest();
    else if (this.count === this.ring.length) this.grow();
    this.ring[(this.head + this.count) % this.ring.length] = event;
    this.count += 1;
    this.heldBytes += event.bytes;
    while (this.heldBytes > this.maxBytes) this.dropOldest();
  }

  /**
   * The events after `after` up to `current`, oldest first, or null when they are not all held:
   * `after` negative or not an integer, `after > current`, `current` beyond the newest event, or
   * `after` older than the window.
   */
  since(after: number, current: number): EncodedEvent[] | null {
    if (!Number.isSafeInteger(after) || !Number.isSafeInteger(current)) return null;
    if (after < 0 || after > current || current > this.newest || after < this.oldest - 1) return null;
    const events: EncodedEvent[] = new Array<EncodedEvent>(current - after);
    const base = this.oldest;
    for (let sequence = after + 1; sequence <= current; sequence += 1) {
      events[sequence - after - 1] = this.ring[(this.head + sequence - base) % this.ring.length]!;
    }
    return events;
  }

  private dropOldest(): void {
    const event = this.ring[this.head]!;
    this.ring[this.head] = undefined;
    this.head = (this.head + 1) % this.ring.length;
    this.count -= 1;
    this.heldBytes -= event.bytes;
  }

  /** Doubles the ring (up to `maxEvents`), oldest event first at index 0. */
  private grow(): void {
    const size = Math.min(this.ring.length * 2, this.maxEvents);
    const ring = new Array<EncodedEvent | undefined>(size).fill(undefined);
    for (let i = 0; i < this.count; i++) ring[i] = this.ring[(this.head + i) % this.ring.length];
    this.ring = ring;
    this.head = 0;
  }

  private clear(): void {
    while (this.count > 0) this.dropOldest();
  }
}

function wholeNumber(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`replay window ${name} must be a positive integer, got ${value}`);
  }
  return value;
}
