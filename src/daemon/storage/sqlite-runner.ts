/**
 * Runs SQL programs (sql-program.ts) on a better-sqlite3 connection, synchronously.
 *
 * Boundary rule: statements are prepared once per connection and SQL text (a WeakMap keyed by
 * the connection, so closing it needs no reset). `runSqlite` runs inside whatever transaction
 * the caller holds; `runSqliteAtomic` gives the program its own (a savepoint when nested).
 */
import type Database from "better-sqlite3";
import { cachedEntry } from "../../model/cached-entry.js";
import { unreachable } from "../../model/unreachable.js";
import type { SqlProgram, SqlStep } from "./sql-program.js";

const prepared = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function statement(db: Database.Database, sql: string): Database.Statement {
  const cache = cachedEntry(prepared, db, () => new Map<string, Database.Statement>());
  return cachedEntry(cache, sql, () => db.prepare(sql));
}

function execute(db: Database.Database, step: SqlStep): unknown {
  switch (step.op) {
    case "get":
      return statement(db, step.sql).get(...step.params);
    case "all":
      return statement(db, step.sql).all(...step.params);
    case "run":
      return { changes: statement(db, step.sql).run(...step.params).changes };
    case "dialect":
      return "sqlite";
    default:
      unreachable(step, "unknown SQL step");
  }
}

/** Run `program` on `db` in the caller's transaction (or none); returns its result. */
export function runSqlite<T>(db: Database.Database, program: SqlProgram<T>): T {
  let next = program.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = execute(db, next.value);
    } catch (error) {
      next = program.throw(error);
      continue;
    }
    next = program.next(result);
  }
  return next.value;
}

/** Run `program` all or nothing: its own IMMEDIATE transaction, or a savepoint of the caller's. */
export function runSqliteAtomic<T>(db: Database.Database, program: SqlProgram<T>): T {
  const transaction = db.transaction(() => runSqlite(db, program));
  return db.inTransaction ? transaction() : transaction.immediate();
}
