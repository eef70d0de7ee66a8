/**
 * The SSE frame of one batch: `id: <generation>.<cursor>` then
 * `data: {"generation","cursor","events":[...],"snapshot"?}` and a blank line. The batch JSON
 * is concatenated from the events' pre-encoded JSON; only a reset's snapshot is encoded here.
 *
 * Boundary rule: pure string building; JSON.stringify never emits a raw line break, so the
 * whole batch fits on one `data:` line.
 */
import type { ResetReason } from "../../api/session-events.js";
import { formatEventId } from "./cursor.js";
import { type EncodedEvent, encodeResetEvent } from "./encoded-event.js";

/** A reset that opens a batch, with the session snapshot the client rebuilds from. */
export interface BatchReset {
  readonly reason: ResetReason;
  readonly snapshot: object;
}

/** The most bytes of a frame of events; a longer read goes out as several frames. */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

/** Room kept in a frame for its `id:` line and the batch fields around the events. */
const FRAME_ENVELOPE_BYTES = 512;

/**
 * How many of `events`, from the first, fit in one frame of at most `maxFrameBytes` (always at
 * least one, so a stream always moves on; a single event is bounded where it is made).
 */
export function eventsInFrame(events: readonly EncodedEvent[], maxFrameBytes: number): number {
  let used = FRAME_ENVELOPE_BYTES;
  for (let i = 0; i < events.length; i++) {
    used += events[i]!.bytes + 1;
    if (used > maxFrameBytes && i > 0) return i;
  }
  return events.length;
}

/** The keepalive comment written when nothing else was sent for a while. */
export const KEEPALIVE_FRAME = ": keepalive\n\n";

/** Encodes one batch as an SSE frame. */
export function encodeBatchFrame(
  generation: string,
  cursor: number,
  events: readonly EncodedEvent[],
  reset?: BatchReset,
): string {
  const parts: string[] = reset === undefined ? [] : [encodeResetEvent(reset.reason)];
  for (const event of events) parts.push(event.json);
  const snapshot = reset === undefined ? "" : `,"snapshot":${JSON.stringify(reset.snapshot)}`;
  return (
    `id: ${formatEventId(generation, cursor)}\n` +
    `data: {"generation":"${generation}","cursor":${cursor},"events":[${parts.join(",")}]${snapshot}}\n\n`
  );
}
