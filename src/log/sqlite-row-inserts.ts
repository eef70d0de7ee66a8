/**
 * The SQLite store's inserts of an append's entries: one multi-row INSERT per append (up to
 * `rowsPerStatement` entries each), so an append of a turn's end (its answer, `turn_end` and
 * `run_outcome`) costs one statement, not one per entry.
 *
 * Boundary rule: statements only; the compare before the insert and the head after it are the
 * store's (sqlite-store.ts).
 */
import type Database from "better-sqlite3";
import type { PreparedEntry } from "./prepared-append.js";

/** Entries per statement: 7 values each, far below SQLite's bound on a statement's variables. */
const rowsPerStatement = 16;

const insertHead =
  "INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES ";

export class SqliteRowInserts {
  readonly #db: Database.Database;
  /** The INSERT of n rows, prepared at its first use, by n. */
  readonly #byCount = new Map<number, Database.Statement<unknown[]>>();

  /** The statements on `db` (whose schema exists). */
  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Insert `prepared` as the session's entries from position `first` on, stamped `createdAt` (ms). */
  insert(sessionId: string, first: number, prepared: readonly PreparedEntry[], createdAt: number): void {
    for (let start = 0; start < prepared.length; start += rowsPerStatement) {
      const chunk = prepared.slice(start, start + rowsPerStatement);
      const values: unknown[] = [];
      chunk.forEach(({ hashed, text }, i) => {
        values.push(
          sessionId,
          first + start + i,
          hashed.hash,
          hashed.prev_hash,
          hashed.entry.kind,
          text,
          createdAt,
        );
      });
      this.#statement(chunk.length).run(values);
    }
  }

  #statement(count: number): Database.Statement<unknown[]> {
    let statement = this.#byCount.get(count);
    if (statement === undefined) {
      const rows = Array.from({ length: count }, () => "(?, ?, ?, ?, ?, ?, ?)").join(", ");
      statement = this.#db.prepare(`${insertHead}${rows}`);
      this.#byCount.set(count, statement);
    }
    return statement;
  }
}
