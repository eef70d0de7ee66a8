/**
 * Frame merging of streamed text and thinking deltas (the `text` and `thinking` events of
 * docs/http-api.md, "The stream"): the first delta after a quiet frame is emitted at once (no
 * first-token delay); deltas that arrive while a frame is open are collected and emitted as one
 * event when the frame closes; a change of type, run or message emits the collected one first,
 * so order is preserved and each event has one type and message.
 *
 * A frame stays open as long as each frame collected something, so a steady stream costs one
 * event per frame; it closes after one frame with nothing to emit.
 *
 * An event's text is at most `maxUnits` UTF-16 code units: a longer merged (or single) delta is
 * emitted as several events of the same type and message, never splitting a surrogate pair, so
 * no delta event outgrows a stream frame however fast the model writes.
 *
 * Boundary rule: per-delta work is a comparison and an array push; text is joined and encoded
 * only when an event is emitted. Emits through a callback; knows nothing about sequences.
 */
import type { JsonObject } from "../../model/json.js";
import type { DeltaEventType } from "./encoded-event.js";

/** The most UTF-16 code units of text one delta event carries (at most 192 KiB of UTF-8). */
const DEFAULT_DELTA_MAX_UNITS = 64 * 1024;

/** Receives each merged delta event. */
export type DeltaEmit = (type: DeltaEventType, data: JsonObject) => void;

interface PendingDelta {
  readonly type: DeltaEventType;
  readonly turnId: string;
  readonly messageId: string;
  readonly parts: string[];
}

/** Merges text/thinking deltas per frame of `frameMs` milliseconds. */
export class DeltaMerger {
  private pending: PendingDelta | null = null;
  private frame: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly frameMs: number,
    private readonly emit: DeltaEmit,
    private readonly maxUnits: number = DEFAULT_DELTA_MAX_UNITS,
  ) {
    if (!Number.isFinite(frameMs) || frameMs < 0)
      throw new RangeError(`frameMs must be >= 0, got ${frameMs}`);
    if (!Number.isSafeInteger(maxUnits) || maxUnits < 2)
      throw new RangeError(`maxUnits must be an integer >= 2, got ${maxUnits}`);
  }

  /** True while a frame is open (deltas are being collected instead of emitted at once). */
  get frameOpen(): boolean {
    return this.frame !== null;
  }

  /** True when collected text is waiting for the frame to close. */
  get hasPending(): boolean {
    return this.pending !== null;
  }

  /** Adds one delta; empty text is ignored (it would be an event that says nothing). */
  add(type: DeltaEventType, turnId: string, messageId: string, text: string): void {
    if (text.length === 0) return;
    const pending = this.pending;
    if (pending !== null) {
      if (pending.type === type && pending.messageId === messageId && pending.turnId === turnId) {
        pending.parts.push(text);
        return;
      }
      this.flush();
    }
    if (this.frame === null && !this.stopped) {
      this.emitText(type, turnId, messageId, text);
      this.openFrame();
      return;
    }
    this.pending = { type, turnId, messageId, parts: [text] };
  }

  /** Emits the collected delta now (before any other event, so order is preserved). */
  flush(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    const text = pending.parts.length === 1 ? pending.parts[0]! : pending.parts.join("");
    this.emitText(pending.type, pending.turnId, pending.messageId, text);
  }

  /** Emits what is collected and stops the frame timer; later deltas are emitted one by one. */
  stop(): void {
    this.flush();
    this.stopped = true;
    if (this.frame !== null) clearTimeout(this.frame);
    this.frame = null;
  }

  /** Emits `text` as one event, or as several of at most `maxUnits` code units each. */
  private emitText(type: DeltaEventType, turnId: string, messageId: string, text: string): void {
    for (let start = 0; start < text.length; ) {
      let end = Math.min(text.length, start + this.maxUnits);
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      this.emit(type, deltaData(turnId, messageId, text.slice(start, end)));
      start = end;
    }
  }

  private openFrame(): void {
    this.frame = setTimeout(() => this.closeFrame(), this.frameMs);
    this.frame.unref();
  }

  private closeFrame(): void {
    this.frame = null;
    if (this.pending === null) return;
    this.flush();
    // Deltas are still flowing: keep collecting, or the next one would skip the frame.
    this.openFrame();
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function deltaData(turnId: string, messageId: string, text: string): JsonObject {
  return { run_id: turnId, message_id: messageId, text };
}
