/**
 * What retention reads of the tables: the sessions it may consider (nothing waits in them, no
 * turn runs) with their size, and the check a prune repeats inside its own transaction.
 *
 * Boundary rule: SQL programs (sql-program.ts), reads only; the storage composes them with the
 * log store's writes. A size is the bytes of the entries' canonical JSON (the `entry` column),
 * which is what a prune or a deletion frees of the log (rows, indexes and the other tables'
 * rows come on top).
 */
import { all, dialect, get, type SqlProgram } from "./sql-program.js";

/** A session retention may act on, as the tables describe it now. */
export interface RetentionCandidate {
  id: string;
  parentId: string | null;
  /** ms since the epoch. */
  activityAt: number;
  /** Entries stored, and their bytes. */
  entries: number;
  bytes: number;
}

/**
 * The sessions with no pending input and no running turn that are idle since before
 * `idleBefore` (ms; null: none by idleness) or whose stored entries take more than `aboveBytes`
 * (null: none by size), oldest activity first.
 */
export function* retentionCandidatesProgram(
  idleBefore: number | null,
  aboveBytes: number | null,
): SqlProgram<RetentionCandidate[]> {
  const length = (yield* dialect()) === "sqlite" ? "LENGTH(CAST(t.entry AS BLOB))" : "OCTET_LENGTH(t.entry)";
  const rows = yield* all<{
    id: string;
    parent_id: string | null;
    activity_at: number | string;
    entries: number | string;
    bytes: number | string;
  }>(
    `SELECT s.id, s.parent_id, s.activity_at, COUNT(t.position) AS entries, COALESCE(SUM(${length}), 0) AS bytes
       FROM sessions s LEFT JOIN transcript t ON t.session = s.id
      WHERE NOT EXISTS (SELECT 1 FROM inputs i WHERE i.session = s.id AND i.delivery = 'pending')
        AND NOT EXISTS (SELECT 1 FROM turns r WHERE r.session = s.id AND r.state = 'running')
      GROUP BY s.id, s.parent_id, s.activity_at
     HAVING s.activity_at < ? OR COALESCE(SUM(${length}), 0) > ?
      ORDER BY s.activity_at, s.id`,
    idleBefore ?? Number.MIN_SAFE_INTEGER,
    aboveBytes ?? Number.MAX_SAFE_INTEGER,
  );
  return rows.map((row) => ({
    id: row.id,
    parentId: row.parent_id,
    activityAt: Number(row.activity_at),
    entries: Number(row.entries),
    bytes: Number(row.bytes),
  }));
}

/** Why the session is not quiet now (an input waits, a turn runs), or null when it is. */
export function* notQuietProgram(sessionId: string): SqlProgram<string | null> {
  const pending = yield* get(
    "SELECT 1 FROM inputs WHERE session = ? AND delivery = 'pending' LIMIT 1",
    sessionId,
  );
  if (pending !== undefined) return "an input is waiting";
  const running = yield* get(
    "SELECT 1 FROM turns WHERE session = ? AND state = 'running' LIMIT 1",
    sessionId,
  );
  return running === undefined ? null : "a turn is running";
}
