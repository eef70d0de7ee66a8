/**
 * Per-connection caches of prepared statements.
 *
 * Boundary rule: a table module builds its statements once per Database and keeps them only as
 * long as that Database lives (WeakMap), so closing and reopening a database needs no reset.
 */
import type { DaemonDatabase } from "./database.js";

/** A cache of one table module's statements, keyed by connection. */
export type StatementCache<T> = WeakMap<DaemonDatabase, T>;

/** The statements of `db` from `cache`, preparing them with `prepare` on first use. */
export function cachedStatements<T>(
  cache: StatementCache<T>,
  db: DaemonDatabase,
  prepare: (db: DaemonDatabase) => T,
): T {
  let statements = cache.get(db);
  if (statements === undefined) {
    statements = prepare(db);
    cache.set(db, statements);
  }
  return statements;
}
