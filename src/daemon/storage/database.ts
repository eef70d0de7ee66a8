/**
 * The daemon's SQLite database: open with the durability pragmas, then bring the schema up to
 * date with ordered, idempotent migrations recorded in `schema_version`.
 *
 * Boundary rule: this file owns the daemon's tables (sessions, inputs, turns,
 * rejected_creations) and nothing else; the `transcript` table belongs to the log's SqliteStore, which shares the connection.
 * Every table holding session data has a column named `session` (or is `sessions` itself), so
 * a session can be deleted generically (see sessions-table.ts).
 */
import { chmodSync, closeSync, openSync } from "node:fs";
import Database from "better-sqlite3";

/** The better-sqlite3 connection type used throughout the daemon's storage. */
export type DaemonDatabase = Database.Database;

/** The database file was written by a newer daemon whose schema this one does not know. */
export class DatabaseVersionError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(`database ${path} has schema version ${found}, newer than this daemon's ${known}`);
    this.name = "DatabaseVersionError";
  }
}

/** One schema step: its version and the statements that take a database there from the one before. */
export interface Migration {
  version: number;
  statements: readonly string[];
}

// Append only: a released migration is never edited, a change is a new version.
// Foreign keys are deferred so one transaction may delete or insert rows in any order.
export const migrations: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        name TEXT,
        workspace TEXT NOT NULL,
        parent_id TEXT,
        provider_profile TEXT,
        model TEXT,
        system_prompt TEXT,
        created_at INTEGER NOT NULL,
        activity_at INTEGER NOT NULL,
        input_order INTEGER NOT NULL DEFAULT 0,
        usage_prompt_tokens INTEGER NOT NULL DEFAULT 0,
        usage_completion_tokens INTEGER NOT NULL DEFAULT 0,
        usage_cached_prompt_tokens INTEGER NOT NULL DEFAULT 0,
        usage_total_tokens INTEGER NOT NULL DEFAULT 0,
        preview_text TEXT NOT NULL DEFAULT '',
        preview_truncated INTEGER NOT NULL DEFAULT 0,
        transcript_count INTEGER NOT NULL DEFAULT 0
      )`,
      "CREATE INDEX sessions_by_activity ON sessions (activity_at DESC, id DESC)",
      `CREATE TABLE turns (
        id TEXT PRIMARY KEY,
        session TEXT NOT NULL REFERENCES sessions (id) DEFERRABLE INITIALLY DEFERRED,
        state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'interrupted', 'abandoned', 'failed')),
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        input_ids TEXT NOT NULL,
        error TEXT
      )`,
      "CREATE INDEX turns_by_session_state ON turns (session, state)",
      // At most one running turn per session: a second start is a bug, not a state.
      "CREATE UNIQUE INDEX turns_one_running ON turns (session) WHERE state = 'running'",
      `CREATE TABLE inputs (
        id TEXT PRIMARY KEY,
        session TEXT NOT NULL REFERENCES sessions (id) DEFERRABLE INITIALLY DEFERRED,
        kind TEXT NOT NULL,
        intent TEXT NOT NULL,
        client_id TEXT,
        accepted_at INTEGER NOT NULL,
        acceptance_order INTEGER NOT NULL,
        delivery TEXT NOT NULL CHECK (delivery IN ('pending', 'committed', 'cancelled')),
        transcript_position INTEGER,
        turn_id TEXT,
        UNIQUE (session, acceptance_order)
      )`,
      "CREATE INDEX inputs_by_delivery ON inputs (session, delivery, acceptance_order)",
    ],
  },
  {
    version: 2,
    statements: [
      // Where a fork started: the checkpoint it was asked for and the hash of the source entry.
      // Null for sessions that are not forks and for forks made before this version.
      "ALTER TABLE sessions ADD COLUMN fork_checkpoint_id TEXT",
      "ALTER TABLE sessions ADD COLUMN fork_entry_hash TEXT",
      "CREATE INDEX sessions_by_parent ON sessions (parent_id, activity_at DESC, id DESC)",
      // Creations refused for what they asked (a bad workspace, an unknown checkpoint), so a
      // later GET of the id can say why it does not exist. Not session data: no `session` column.
      `CREATE TABLE rejected_creations (
        id TEXT PRIMARY KEY,
        rejected_at INTEGER NOT NULL,
        status INTEGER NOT NULL,
        code TEXT NOT NULL,
        detail TEXT NOT NULL
      )`,
      "CREATE INDEX rejected_creations_by_time ON rejected_creations (rejected_at)",
    ],
  },
  {
    version: 3,
    statements: [
      // The MCP servers a session uses (a JSON array of names from config.json's mcpServers).
      // Null for sessions created before this version: they use none.
      "ALTER TABLE sessions ADD COLUMN mcp_servers TEXT",
    ],
  },
];

/** The schema version this daemon writes. */
export const schemaVersion = migrations[migrations.length - 1]!.version;

/**
 * Open (creating if needed, mode 0600) the daemon database at `path`, set WAL,
 * synchronous=FULL, foreign_keys=ON and busy_timeout=5000, and apply pending migrations.
 */
export function openDaemonDatabase(path: string): DaemonDatabase {
  const inMemory = path === ":memory:" || path === "";
  if (!inMemory) restrictFileMode(path);
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
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

/** True when `error` is a better-sqlite3 error with this (extended) result code. */
export function hasSqliteCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as Error & { code?: unknown }).code === code;
}

// SQLite gives the -wal and -shm files the database file's mode, so 0600 here covers all three.
function restrictFileMode(path: string): void {
  closeSync(openSync(path, "a", 0o600));
  chmodSync(path, 0o600);
}

function migrate(db: DaemonDatabase, path: string): void {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
  );
  // IMMEDIATE: two daemons opening one file at once must not both apply a migration.
  const apply = db.transaction(() => {
    const current = currentSchemaVersion(db);
    if (current > schemaVersion) throw new DatabaseVersionError(path, current, schemaVersion);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      for (const statement of migration.statements) db.exec(statement);
      db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)").run(
        migration.version,
        Date.now(),
      );
    }
  });
  apply.immediate();
}
