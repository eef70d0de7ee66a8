/**
 * The ids a `task` call uses: its child session's and the id of the input that gives the child
 * its work. Both are derived from the parent session's id and the call's id alone, so running the
 * same call again (after a crash, on another node) finds the same child and the same input, and
 * the database creates and admits them once (sessions and inputs are idempotent by id).
 *
 * The derivation (docs/http-api.md repeats it for clients): derived-uuid.ts's UUIDv7 of the text
 * `skein-task:<purpose>:<parent session id>:<call id>` (purpose `session` or `input`), whose
 * timestamp is the parent session id's own (a parent id that is no UUIDv7 gives timestamp 0).
 */
import { derivedUuidV7, uuidV7Time } from "../session/derived-uuid.js";

/** The client id a child's task input carries: this prefix and the parent's id (clients may not send it). */
export const taskClientIdPrefix = "task:";

/** What a derived id names. */
export type TaskIdPurpose = "session" | "input";

/** The id of `purpose` for the `task` call `callId` of session `parentId`. */
export function taskId(purpose: TaskIdPurpose, parentId: string, callId: string): string {
  return derivedUuidV7(`skein-task:${purpose}:${parentId}:${callId}`, uuidV7Time(parentId) ?? 0);
}
