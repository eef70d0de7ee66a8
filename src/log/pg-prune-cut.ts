/**
 * The PostgreSQL store's look-up of where a pruned log starts: the cut its latest `pruned` record
 * names (see pruned-log.ts), for range reads that reach before it.
 *
 * Boundary rule: one read on the caller's client (inside its snapshot); the record's text is
 * parsed, not verified (a range read verifies only its range; a whole read checks the record).
 */
import type pg from "pg";
import { type PruneCut, pruneCutOf } from "./pruned-log.js";
import { parseStoredEntry } from "./stored-entry.js";

/** The cut the session's latest `pruned` record names (its text parsed, not verified), or null. */
export async function latestPgCut(client: pg.PoolClient, sessionId: string): Promise<PruneCut | null> {
  const result = await client.query<{ entry: string }>(
    "SELECT entry FROM transcript WHERE session = $1 AND kind = 'pruned' ORDER BY position DESC LIMIT 1",
    [sessionId],
  );
  const text = result.rows[0]?.entry;
  return text === undefined ? null : pruneCutOf(parseStoredEntry(sessionId, -1, text));
}

/** The hash the entry at `position` links to when the log's latest cut is exactly there, else undefined. */
export async function cutHashAt(
  client: pg.PoolClient,
  sessionId: string,
  position: number,
): Promise<string | undefined> {
  const cut = await latestPgCut(client, sessionId);
  return cut?.upTo === position ? cut.cutHash : undefined;
}
