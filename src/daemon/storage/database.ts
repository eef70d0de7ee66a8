/**
 * The daemon's SQLite database: open with the durability pragmas, then bring the schema up to
 * date with the numbered migrations of daemon-migrations.ts, recorded in `schema_version`.
 *
 * Boundary rule: this file owns the daemon's tables (sessions, inputs, turns,
 * rejected_creations) and nothing else; the `transcript` table belongs to the log's SqliteStore, which shares the connection.
 * Every table holding session data has a column named `session` (or is `sessions` itself), so
 * a session can be deleted generically (see sessions-table.ts).
 */
import { chmodSync, closeSync, openSync } from "node:fs";
import Database from "better-sqlite3";
import { migrations } from "./daemon-migrations.js";
import {
  DatabaseVersionError,
  pendingMigrations,
  schemaVersion,
  schemaVersionTable,
} from "./daemon-schema.js";
import { WalFrameCounter } from "./wal-frame-counter.js";

export { DatabaseVersionError, migrations, schemaVersion };

/** The better-sqlite3 connection type used throughout the daemon's storage. */
export type DaemonDatabase = Database.Database;

/** Statements run so far on connections opened with `countStatements` (see `statementsRun`). */
const statementCounts = new WeakMap<DaemonDatabase, { count: number }>();
/** The log pages written by connections opened with `countStatements` (see `walFramesWritten`). */
const frameCounters = new WeakMap<DaemonDatabase, WalFrameCounter>();

/**
 * Open (creating if needed, mode 0600) the daemon database at `path`, set WAL,
 * synchronous=FULL, foreign_keys=ON, busy_timeout=5000 and temp_store=MEMORY, and apply pending
 * migrations. temp_store=MEMORY keeps a savepoint's undo pages in memory: by default SQLite
 * spills those of a commit over 64 KiB to a file it makes and unlinks in /var/tmp, so commits
 * then depended on a directory outside the home (full or read-only there, a commit fails).
 * `countStatements` (benchmarks only: SQLite then expands each statement's text for the count)
 * makes `statementsRun` count every statement the connection runs, and `walFramesWritten` the
 * pages its commits write to the write-ahead log (a file database only).
 */
export function openDaemonDatabase(
  path: string,
  options: { countStatements?: boolean } = {},
): DaemonDatabase {
  const inMemory = path === ":memory:" || path === "";
  if (!inMemory) restrictFileMode(path);
  const counter = { count: 0 };
  const frames = options.countStatements === true && !inMemory ? new WalFrameCounter(path) : null;
  const verbose = () => {
    counter.count++;
    frames?.sample();
  };
  const db = new Database(path, options.countStatements === true ? { verbose } : {});
  if (options.countStatements === true) statementCounts.set(db, counter);
  if (frames !== null) frameCounters.set(db, frames);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    db.pragma("temp_store = MEMORY");
    migrate(db, path);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The database file at `path` and the companions SQLite keeps next to it (write-ahead log,
 * shared memory, rollback journal); none for an in-memory database.
 */
export function databaseFiles(path: string): string[] {
  if (path === ":memory:" || path === "") return [];
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];
}

/** The highest applied migration version (0 for a database that has none). */
export function currentSchemaVersion(db: DaemonDatabase): number {
  const row = db.prepare("SELECT max(version) AS version FROM schema_version").get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

// SQLite gives the -wal and -shm files the database file's mode, so 0600 here covers all three.
function restrictFileMode(path: string): void {
  closeSync(openSync(path, "a", 0o600));
  chmodSync(path, 0o600);
}

function migrate(db: DaemonDatabase, path: string): void {
  db.exec(schemaVersionTable("sqlite"));
  // IMMEDIATE: two daemons opening one file at once must not both apply a migration.
  const apply = db.transaction(() => {
    for (const { version, statements } of pendingMigrations(currentSchemaVersion(db), path, "sqlite")) {
      for (const statement of statements) db.exec(statement);
      db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)").run(version, Date.now());
    }
  });
  apply.immediate();
}

/** How many statements `db` ran, when it was opened with `countStatements`; null otherwise. */
export function statementsRun(db: DaemonDatabase): number | null {
  return statementCounts.get(db)?.count ?? null;
}

/**
 * How many pages `db`'s commits wrote to the write-ahead log since it opened, when it was opened
 * with `countStatements` (a file database); null otherwise.
 */
export function walFramesWritten(db: DaemonDatabase): number | null {
  const counter = frameCounters.get(db);
  if (counter === undefined) return null;
  counter.sample();
  return counter.frames;
}
