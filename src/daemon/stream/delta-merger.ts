/**
 * Frame merging of streamed text and thinking deltas (spec §5): the first delta after a quiet
 * frame is emitted at once (no first-token delay); deltas that arrive while a frame is open are
 * collected and emitted as one event when the frame closes; a change of type, run or message
 * emits the collected one first, so order is preserved and each event has one type and message.
 *
 * A frame stays open as long as each frame collected something, so a steady stream costs one
 * event per frame; it closes after one frame with nothing to emit.
 *
 * Boundary rule: per-delta work is a comparison and an array push; text is joined and encoded
 * only when an event is emitted. Emits through a callback; knows nothing about sequences.
 */
import type { JsonObject } from "../../model/json.js";
import type { DeltaEventType } from "./session-event.js";

/** Receives each merged delta event. */
export type DeltaEmit = (type: DeltaEventType, data: JsonObject) => void;

interface PendingDelta {
  readonly type: DeltaEventType;
  readonly runId: string;
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
  ) {
    if (!Number.isFinite(frameMs) || frameMs < 0)
      throw new RangeError(`frameMs must be >= 0, got ${frameMs}`);
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
  add(type: DeltaEventType, runId: string, messageId: string, text: string): void {
    if (text.length === 0) return;
    const pending = this.pending;
    if (pending !== null) {
      if (pending.type === type && pending.messageId === messageId && pending.runId === runId) {
        pending.parts.push(text);
        return;
      }
      this.flush();
    }
    if (this.frame === null && !this.stopped) {
      this.emit(type, deltaData(runId, messageId, text));
      this.openFrame();
      return;
    }
    this.pending = { type, runId, messageId, parts: [text] };
  }

  /** Emits the collected delta now (before any other event, so order is preserved). */
  flush(): void {
    const pending = this.pending;
    if (pending === null) return;
    this.pending = null;
    const text = pending.parts.length === 1 ? pending.parts[0]! : pending.parts.join("");
    this.emit(pending.type, deltaData(pending.runId, pending.messageId, text));
  }

  /** Emits what is collected and stops the frame timer; later deltas are emitted one by one. */
  stop(): void {
    this.flush();
    this.stopped = true;
    if (this.frame !== null) clearTimeout(this.frame);
    this.frame = null;
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

function deltaData(runId: string, messageId: string, text: string): JsonObject {
  return { run_id: runId, message_id: messageId, text };
}
