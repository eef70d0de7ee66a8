/**
 * What the daemon's own rows say about where a session's log reached: every committed input
 * records the position of the entry that delivered it. A log that ends before such a position
 * lost entries after the input was delivered, even when what remains verifies and its head
 * record (an older, validly signed copy put back) agrees.
 *
 * Boundary rule: the inputs row is read before the log (the log only grows, so whatever a
 * receipt names then must be in the log read after it); the check is a pure function.
 */
import type { PositionedEntry } from "../../log/entries.js";
import { LogCorruptError } from "../../log/errors.js";
import { get, type SqlProgram } from "./sql-program.js";

/** The committed input delivered furthest into a session's log. */
export interface DeliveredInput {
  id: string;
  position: number;
}

/** The session's last committed input that names a log position, or null. */
export function* lastDeliveredInputProgram(sessionId: string): SqlProgram<DeliveredInput | null> {
  const row = yield* get<{ id: string; transcript_position: number | string }>(
    `SELECT id, transcript_position FROM inputs
     WHERE session = ? AND delivery = 'committed' AND transcript_position IS NOT NULL
     ORDER BY acceptance_order DESC LIMIT 1`,
    sessionId,
  );
  return row === undefined ? null : { id: row.id, position: Number(row.transcript_position) };
}

/** Throw `LogCorruptError` when `entries` end before the position `delivered` names. */
export function checkDeliveredWithin(
  sessionId: string,
  entries: readonly PositionedEntry[],
  delivered: DeliveredInput | null,
): void {
  if (delivered === null) return;
  const end = entries.length === 0 ? -1 : entries[entries.length - 1]!.position;
  if (delivered.position <= end) return;
  throw new LogCorruptError(
    sessionId,
    end + 1,
    `input ${delivered.id} was delivered at position ${delivered.position}, but the log ends at ${end}: entries were removed`,
  );
}
