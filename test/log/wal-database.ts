/**
 * A SQLite database in write-ahead-log mode in a fresh directory for each test, with one table
 * `t (n)`, as the WAL tests start from; closed (if the test left it open) and removed after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach } from "vitest";

/** The test's database, its file and its directory; read them inside tests and hooks. */
export interface WalDatabase {
  readonly dir: string;
  readonly path: string;
  readonly db: Database.Database;
}

/** A fresh database named from `prefix` for each test, with `pragma` set before the table is made. */
export function withWalDatabase(prefix: string, pragma: string): WalDatabase {
  let current: WalDatabase | undefined;
  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    const path = join(dir, "db.sqlite");
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    db.pragma(pragma);
    db.exec("CREATE TABLE t (n INTEGER NOT NULL)");
    current = { dir, path, db };
  });
  afterEach(() => {
    if (current === undefined) return;
    if (current.db.open) current.db.close();
    rmSync(current.dir, { recursive: true, force: true });
    current = undefined;
  });
  const read = (): WalDatabase => {
    if (current === undefined) throw new Error("the database is read outside a test");
    return current;
  };
  return {
    get dir() {
      return read().dir;
    },
    get path() {
      return read().path;
    },
    get db() {
      return read().db;
    },
  };
}
