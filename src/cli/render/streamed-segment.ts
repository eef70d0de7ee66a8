/**
 * Text the transcript view showed from deltas, per message, until the entry that commits it
 * arrives; and what a reset learns from them (whether streamed text was never saved).
 */
import type { HistoryEntry } from "../../api/history.js";
import type { DeltaKind } from "./transcript-writer.js";

/** Text shown from deltas and not yet matched to a committed entry. */
export interface StreamedSegment {
  kind: DeltaKind;
  turnId: string;
  messageId: string;
  shown: string;
  /** Joined mid-message: `shown` is collected, not printed; the committed entry is printed whole. */
  held: boolean;
}

/**
 * Whether a reset drops streamed text that was shown but never saved: a segment of a run that is
 * over, with no assistant or thinking entry of that run among the reset's new entries.
 */
export function dropsUnsavedText(
  segments: readonly StreamedSegment[],
  entries: readonly HistoryEntry[],
  known: (entryId: string) => boolean,
  runningTurnId: string | null,
): boolean {
  return segments.some(
    (segment) =>
      !segment.held &&
      segment.turnId !== runningTurnId &&
      segment.shown !== "" &&
      !entries.some(
        (entry) =>
          !known(entry.id) &&
          entry.turn_id === segment.turnId &&
          (entry.kind === "assistant" || entry.kind === "thinking"),
      ),
  );
}
