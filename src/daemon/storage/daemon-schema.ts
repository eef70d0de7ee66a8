/**
 * The daemon's schema as its numbered migrations (daemon-migrations.ts) take a database there,
 * one list for both backends: SQLite runs each statement as written; PostgreSQL runs it with
 * every INTEGER widened to BIGINT (times are milliseconds, beyond 32 bits). Each applied version
 * is recorded in `schema_version`; a database with a higher version than this code knows is
 * refused (`DatabaseVersionError`) before anything is written to it.
 *
 * Boundary rule: applying the schema only. The log's own tables (`transcript`,
 * `transcript_heads`) are the log stores'; the cluster's (`nodes`, `session_leases`) are
 * migrations like any other.
 */

import { unreachable } from "../../model/unreachable.js";
import { type Migration, migrations } from "./daemon-migrations.js";
import { get, type SqlDialect, type SqlProgram } from "./sql-program.js";

/** The database was written by a newer daemon whose schema this one does not know. */
export class DatabaseVersionError extends Error {
  constructor(
    readonly path: string,
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `database ${path} has schema version ${found}, newer than this daemon's ${known}: ` +
        "run a daemon at least as new as the one that wrote it, or point SKEIN_DB at another database",
    );
    this.name = "DatabaseVersionError";
  }
}

/** The schema version this daemon writes. */
export const schemaVersion = migrations[migrations.length - 1]!.version;

/** The statements of `migration` in `dialect`. */
function migrationStatements(migration: Migration, dialect: SqlDialect): string[] {
  switch (dialect) {
    case "sqlite":
      return [...migration.statements];
    case "postgres":
      return migration.statements.map((statement) => statement.replace(/\bINTEGER\b/g, "BIGINT"));
    default:
      unreachable(dialect, "unknown dialect");
  }
}

/**
 * The migrations a database at version `current` still needs, in order, as `dialect`
 * statements; a database newer than this code (`label` names it) is a DatabaseVersionError.
 */
export function pendingMigrations(
  current: number,
  label: string,
  dialect: SqlDialect,
): Array<{ version: number; statements: string[] }> {
  if (current > schemaVersion) throw new DatabaseVersionError(label, current, schemaVersion);
  return migrations
    .filter((migration) => migration.version > current)
    .map((migration) => ({
      version: migration.version,
      statements: migrationStatements(migration, dialect),
    }));
}

/** The `schema_version` table in `dialect` (created if missing). */
export function schemaVersionTable(dialect: SqlDialect): string {
  const type = dialect === "postgres" ? "BIGINT" : "INTEGER";
  return `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at ${type} NOT NULL)`;
}

/** The highest migration version applied to the database (0 for none): a readiness probe's query. */
export function* appliedSchemaVersionProgram(): SqlProgram<number> {
  const row = yield* get<{ version: number | string | null }>(
    "SELECT max(version) AS version FROM schema_version",
  );
  return Number(row?.version ?? 0);
}
