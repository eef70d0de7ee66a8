/**
 * The SQLite store's verified reads of a session's rows, page by page: rows are fetched a page
 * at a time (keyset paging on position) and verified as they come, so their column values die
 * young instead of all staying alive until the last row. A range read chains onto the hash of
 * the row before it.
 *
 * Boundary rule: reads only, inside the caller's read transaction (the store's), so every page
 * comes from one snapshot; the recorded head is the store's to check.
 */
import type Database from "better-sqlite3";
import type { PositionedEntry } from "./entries.js";
import { isEntryHash } from "./entry-hash.js";
import { LogCorruptError } from "./errors.js";
import { checkPrunedStart, type PruneCut, pruneCutOf } from "./pruned-log.js";
import { limitClause } from "./sql-limit.js";
import { parseStoredEntry } from "./stored-entry.js";
import { type StoredRow, storedStart, verifyRows } from "./verify-rows.js";

const DEFAULT_READ_PAGE_ROWS = 256;

const ROW_COLUMNS = "SELECT position, hash, prev_hash, kind, entry FROM transcript WHERE session = ?";

/** The page size for a store's `readPageRows` option (default 256); throws RangeError unless a positive integer. */
export function readPageRowsOf(option: number | undefined): number {
  const pageRows = option ?? DEFAULT_READ_PAGE_ROWS;
  if (!Number.isSafeInteger(pageRows) || pageRows < 1) {
    throw new RangeError(`readPageRows must be a positive integer, got ${pageRows}`);
  }
  return pageRows;
}

/** The paged queries of one connection and the page size they use. */
export class SqlitePagedRead {
  readonly pageRows: number;
  /** A log's first page: no bound on position, so rows at any position (even a bad one) are seen. */
  private readonly selectFirstPage: Database.Statement<[string], StoredRow>;
  /**
   * The page after a verified row (`position > ?`): keyset paging keeps ORDER BY position's own
   * order, so a row at a fractional or non-numeric position is not skipped between pages.
   */
  private readonly selectNextPage: Database.Statement<[string, number], StoredRow>;
  private readonly selectFirstRangePage: Database.Statement<[string, number, number], StoredRow>;
  private readonly selectNextRangePage: Database.Statement<[string, number, number], StoredRow>;
  private readonly selectHashAt: Database.Statement<[string, number], unknown>;
  private readonly selectLatestPruned: Database.Statement<[string], unknown>;

  /** Prepare the paged queries on `db` (whose `transcript` table exists); see `readPageRowsOf`. */
  constructor(db: Database.Database, pageRows?: number) {
    this.pageRows = readPageRowsOf(pageRows);
    // The page size is in the text, not bound (sql-limit.ts: a bound LIMIT re-prepares each run).
    const limit = `ORDER BY position ${limitClause(this.pageRows)}`;
    this.selectFirstPage = db.prepare<[string], StoredRow>(`${ROW_COLUMNS} ${limit}`).raw(true);
    this.selectNextPage = db
      .prepare<[string, number], StoredRow>(`${ROW_COLUMNS} AND position > ? ${limit}`)
      .raw(true);
    this.selectFirstRangePage = db
      .prepare<[string, number, number], StoredRow>(
        `${ROW_COLUMNS} AND position >= ? AND position < ? ${limit}`,
      )
      .raw(true);
    this.selectNextRangePage = db
      .prepare<[string, number, number], StoredRow>(
        `${ROW_COLUMNS} AND position > ? AND position < ? ${limit}`,
      )
      .raw(true);
    this.selectLatestPruned = db
      .prepare<[string], unknown>(
        "SELECT entry FROM transcript WHERE session = ? AND kind = 'pruned' ORDER BY position DESC LIMIT 1",
      )
      .pluck(true);
    this.selectHashAt = db
      .prepare<[string, number], unknown>("SELECT hash FROM transcript WHERE session = ? AND position = ?")
      .pluck(true);
  }

  /**
   * The hash a range read from `from` chains onto: null when `from` is 0, undefined when no row
   * holds position `from - 1`. Throws `LogCorruptError` when that row's hash is not a hash.
   */
  predecessorHash(sessionId: string, from: number): string | null | undefined {
    if (from === 0) return null;
    const predecessor = this.selectHashAt.get(sessionId, from - 1);
    if (predecessor === undefined) return undefined;
    if (!isEntryHash(predecessor)) {
      throw new LogCorruptError(sessionId, from - 1, "hash is not 64 lowercase hex digits");
    }
    return predecessor;
  }

  /**
   * Every row of a session, verified as positions 0, 1, ... of one chain, or, for a pruned log,
   * as positions P, P + 1, ... whose latest `pruned` record names the cut at P (pruned-log.ts).
   */
  verifyAll(sessionId: string): PositionedEntry[] {
    const rows = this.firstPage(sessionId, 0, null);
    const start = storedStart(sessionId, rows[0]);
    const entries = this.verifyPages(sessionId, start.position, null, start.prevHash, rows);
    checkPrunedStart(sessionId, entries);
    return entries;
  }

  /** The cut the session's latest `pruned` record names (its text parsed, not verified), or null. */
  latestCut(sessionId: string): PruneCut | null {
    const text = this.selectLatestPruned.get(sessionId);
    if (typeof text !== "string") return null;
    return pruneCutOf(parseStoredEntry(sessionId, -1, text));
  }

  /** The first page of rows `from` up to `end` (null: every row of the session, whatever its position). */
  firstPage(sessionId: string, from: number, end: number | null): StoredRow[] {
    return end === null
      ? this.selectFirstPage.all(sessionId)
      : this.selectFirstRangePage.all(sessionId, from, end);
  }

  /**
   * Verify `firstPage` (see `firstPage`) and the pages after it. Each later page starts after
   * the last row verified, whose position is then exactly the one expected, so the pages
   * together are the rows one ORDER BY position query would give, checked in the same order.
   */
  verifyPages(
    sessionId: string,
    from: number,
    end: number | null,
    prevHash: string | null,
    firstPage: StoredRow[],
  ): PositionedEntry[] {
    const size = this.pageRows;
    const entries: PositionedEntry[] = [];
    let rows = firstPage;
    let prev = prevHash;
    for (;;) {
      verifyRows(sessionId, rows, from + entries.length, prev, entries);
      if (rows.length < size) return entries;
      const last = entries[entries.length - 1]!;
      prev = last.hash;
      rows =
        end === null
          ? this.selectNextPage.all(sessionId, last.position)
          : this.selectNextRangePage.all(sessionId, last.position, end);
    }
  }
}
