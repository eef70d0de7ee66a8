/**
 * Verification of entries read back from a table (`transcript` in SQLite or PostgreSQL): each
 * row is parsed, checked against its `kind` column and its place, and its stored text hashed.
 *
 * Boundary rule: pure; shared by the SQL stores so both report corruption the same way.
 */
import type { PositionedEntry } from "./entries.js";
import { LogCorruptError } from "./errors.js";
import { parseStoredEntry } from "./stored-entry.js";
import { verifyEntry } from "./verify-chain.js";

/** A stored row as the SQL stores select it: position, hash, prev_hash, kind, entry text. */
export type StoredRow = [position: number, hash: unknown, prevHash: unknown, kind: unknown, entry: unknown];

/** Verify rows that must hold positions `from, from + 1, ...` chained after `prevHash`. */
export function verifyRows(
  sessionId: string,
  rows: readonly StoredRow[],
  from: number,
  prevHash: string | null,
): PositionedEntry[] {
  const entries: PositionedEntry[] = [];
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
      prev_hash: prevHashColumn as string | null,
      entry,
      position,
    };
    verifyEntry(sessionId, position, prev, stored, text);
    entries.push(stored);
    prev = stored.hash;
  }
  return entries;
}
