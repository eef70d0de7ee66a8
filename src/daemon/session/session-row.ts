/**
 * A session's row read where the session must exist (a loaded or loading actor's).
 *
 * Boundary rule: one read through the storage port.
 */
import { SessionNotFoundError } from "../../log/errors.js";
import type { SessionStorage } from "../storage/session-storage.js";
import type { SessionRow } from "../storage/sessions-table.js";

/** The session's row; throws SessionNotFoundError when there is none. */
export async function requiredRow(
  storage: Pick<SessionStorage, "getSession">,
  sessionId: string,
): Promise<SessionRow> {
  const row = await storage.getSession(sessionId);
  if (row === null) throw new SessionNotFoundError(sessionId);
  return row;
}
