/**
 * A SQLite database in write-ahead-log mode in a fresh directory for each test, with one table
 * `t (n)`, as the WAL tests start from; closed (if the test left it open) and removed after.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { startedForEachTest } from "../support/started-for-describe.js";

/** The test's database, its file and its directory; read them inside tests and hooks. */
export interface WalDatabase {
  readonly dir: string;
  readonly path: string;
  readonly db: Database.Database;
}

/** A fresh database named from `prefix` for each test, with `pragma` set before the table is made. */
export function withWalDatabase(prefix: string, pragma: string): WalDatabase {
  return startedForEachTest(
    () => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      const path = join(dir, "db.sqlite");
      const db = new Database(path);
      db.pragma("journal_mode = WAL");
      db.pragma(pragma);
      db.exec("CREATE TABLE t (n INTEGER NOT NULL)");
      return { dir, path, db };
    },
    ({ dir, db }) => {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  );
}
