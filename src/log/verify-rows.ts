/**
 * Verification of entries read back from a table (`transcript` in SQLite or PostgreSQL): each
 * row is parsed, checked against its `kind` column and its place, and its stored text hashed.
 *
 * Boundary rule: pure; shared by the SQL stores so both report corruption the same way.
 */
import type { PositionedEntry } from "./entries.js";
import { isEntryHash } from "./entry-hash.js";
import { LogCorruptError } from "./errors.js";
import { checkPrunedStart } from "./pruned-log.js";
import { parseStoredEntry } from "./stored-entry.js";
import { type ChainStart, logStart, verifyEntry } from "./verify-chain.js";

/** A stored row as the SQL stores select it: position, hash, prev_hash, kind, entry text. */
export type StoredRow = [position: number, hash: unknown, prevHash: unknown, kind: unknown, entry: unknown];

/**
 * Verify rows that must hold positions `from, from + 1, ...` chained after `prevHash`, appending
 * them to `into` and returning it (a store that reads a log in pages passes the same array for
 * every page, with `prevHash` the hash of the last entry already in it).
 */
export function verifyRows(
  sessionId: string,
  rows: readonly StoredRow[],
  from: number,
  prevHash: string | null,
  into: PositionedEntry[] = [],
): PositionedEntry[] {
  let prev = prevHash;
  for (let i = 0; i < rows.length; i++) {
    const [position, hash, prevHashColumn, kind, text] = rows[i]!;
    const expected = from + i;
    if (position !== expected) throw new LogCorruptError(sessionId, expected, "the entry is missing");
    if (typeof text !== "string") {
      throw new LogCorruptError(sessionId, position, "unparseable record: entry is not text");
    }
    const entry = parseStoredEntry(sessionId, position, text);
    if (kind !== entry.kind) {
      throw new LogCorruptError(
        sessionId,
        position,
        `kind column ${String(kind)} does not match entry kind ${entry.kind}`,
      );
    }
    const stored: PositionedEntry = {
      hash: hash as string,
      // An equal column holds the same text as the verified hash before it: keeping that one
      // string lets the column's copy be collected young (verifyEntry still compares them).
      prev_hash: prevHashColumn === prev ? prev : (prevHashColumn as string | null),
      entry,
      position,
    };
    verifyEntry(sessionId, position, prev, stored, text);
    into.push(stored);
    prev = stored.hash;
  }
  return into;
}

/**
 * Where a whole log's stored rows start, from its first row: position 0 (chained from nothing),
 * or a later position P chained from the row's own prev_hash: a pruned log, which verifies only
 * if its `pruned` record then names that cut (checkPrunedStart). Any other first row reads from
 * position 0, so it is reported as the missing or misplaced entry it is.
 */
export function storedStart(sessionId: string, first: StoredRow | undefined): ChainStart {
  if (first === undefined) return logStart;
  const [position, , prevHash] = first;
  if (!Number.isSafeInteger(position) || position <= 0) return logStart;
  if (!isEntryHash(prevHash)) {
    throw new LogCorruptError(sessionId, position, "the first stored entry has no valid prev_hash");
  }
  return { position, prevHash };
}

/** A whole log's rows (all of the session's, in position order) verified from where they start (see `storedStart`). */
export function verifyStoredLog(sessionId: string, rows: readonly StoredRow[]): PositionedEntry[] {
  const start = storedStart(sessionId, rows[0]);
  const entries = verifyRows(sessionId, rows, start.position, start.prevHash);
  checkPrunedStart(sessionId, entries);
  return entries;
}
