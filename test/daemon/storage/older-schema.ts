/**
 * Databases as an older daemon left them, for migration tests: made at schema `version` by the
 * daemon's own migrations up to it, seeded with rows as that version wrote them, then opened by
 * the daemon as it is now (which runs the migrations after `version`).
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { pendingMigrations, schemaVersionTable } from "../../../src/daemon/storage/daemon-schema.js";
import { openDaemonDatabase } from "../../../src/daemon/storage/database.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { runPg } from "../../../src/daemon/storage/pg-runner.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import type { SqlDialect, SqlProgram } from "../../../src/daemon/storage/sql-program.js";
import { runSqlite } from "../../../src/daemon/storage/sqlite-runner.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { PgSchema } from "../../support/pg-schema.js";
import { tempFolder } from "./temp-database.js";

/** The statements that make a database of schema `version`, schema_version included. */
function statementsOfVersion(version: number, dialect: SqlDialect): string[] {
  return [
    schemaVersionTable(dialect),
    ...pendingMigrations(0, "test", dialect)
      .filter((migration) => migration.version <= version)
      .flatMap((migration) => [
        ...migration.statements,
        `INSERT INTO schema_version (version, applied_at) VALUES (${migration.version}, 0)`,
      ]),
  ];
}

/** A SQLite database made at `version` and seeded by `seed`, opened by the daemon (migrated); close the storage. */
export function migratedSqlite(
  version: number,
  seed: () => SqlProgram<void>,
): { db: Database.Database; storage: SqliteSessionStorage } {
  const path = join(tempFolder(), `v${version}.sqlite`);
  const old = new Database(path);
  for (const statement of statementsOfVersion(version, "sqlite")) old.exec(statement);
  runSqlite(old, seed());
  old.close();
  const db = openDaemonDatabase(path);
  return { db, storage: new SqliteSessionStorage(db, { ownsDb: true }) };
}

/** `schema` made at `version` and seeded by `seed`, opened by the daemon (migrated); close the storage. */
export async function migratedPg(
  schema: PgSchema,
  version: number,
  seed: () => SqlProgram<void>,
): Promise<{ pool: pg.Pool; storage: PgSessionStorage }> {
  for (const statement of statementsOfVersion(version, "postgres")) await schema.query(statement);
  // A plain pool (no migration): the seed writes what `version` would have.
  const seeding = new pg.Pool({ connectionString: schema.url, max: 1 });
  try {
    await runPg(seeding, seed());
  } finally {
    await seeding.end();
  }
  const pool = await openPgDaemonDatabase(schema.url, { max: 2 });
  return { pool, storage: new PgSessionStorage(pool) };
}
