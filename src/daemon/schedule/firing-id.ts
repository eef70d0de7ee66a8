/**
 * The ids a schedule's firing uses: its input's id and, for a schedule that starts a new session
 * each time, that session's id. Both are derived from the schedule's id and the firing's time
 * alone, so every node, and the same node after a crash, derives the same ids for the same
 * firing, and the database admits the firing once (inputs and sessions are idempotent by id).
 *
 * The derivation (docs/http-api.md repeats it for clients): derived-uuid.ts's UUIDv7 of the text
 * `skein-schedule:<purpose>:<schedule id>:<firing time in ms>` (purpose `input` or `session`),
 * whose timestamp is the firing time.
 */
import { derivedUuidV7 } from "../session/derived-uuid.js";

/** What a derived id names. */
export type FiringPurpose = "input" | "session";

/** The id of `purpose` for the firing of schedule `scheduleId` at `fireAtMs`. */
export function firingId(purpose: FiringPurpose, scheduleId: string, fireAtMs: number): string {
  return derivedUuidV7(`skein-schedule:${purpose}:${scheduleId}:${fireAtMs}`, fireAtMs);
}
