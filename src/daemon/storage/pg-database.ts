/**
 * The daemon's PostgreSQL database: a pool on the `SKEIN_DB` URL, and at open the numbered
 * migrations of daemon-schema.ts and the log's tables, applied under a transaction-scoped
 * advisory lock so several daemons booting on one database at once apply each step once.
 *
 * Boundary rule: this file opens, migrates and labels the database; what is written in it is
 * the storage's (pg-session-storage.ts). The tables live in the connection's current schema
 * (a URL may choose it with `?options=-c search_path=NAME`).
 */
import type pg from "pg";
import { keepConnectionErrors } from "../../log/pg-connection-errors.js";
import { pgDriver } from "../../log/pg-driver.js";
import { createPgTranscriptSchema } from "../../log/pg-transcript-schema.js";
import { pendingMigrations, schemaVersionTable } from "./daemon-schema.js";
import { pgTypesOf } from "./pg-runner.js";

/** The URL without its password, for messages and logs. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://(unparsable URL)";
  }
}

/** How to open the daemon's pool. */
export interface PgDaemonDatabaseOptions {
  /** At most this many connections (default 10). */
  max?: number;
  /**
   * The server ends a connection left idle inside a transaction this long (ms; default: never).
   * A cluster node sets it below its lease: a node paused (or cut off) in the middle of a
   * transaction would otherwise keep that transaction's locks, the fence's share lock on a lease
   * row among them, and so keep every other node from taking its sessions for as long as the
   * pause lasts. Its own transactions never wait between statements.
   */
  idleInTransactionMs?: number;
}

/** The name the daemon's pooled connections show in pg_stat_activity unless `SKEIN_DB` names one. */
export const daemonApplicationName = "skein-daemon";

/** Open a pool on `url` and bring its schema up to date. */
export async function openPgDaemonDatabase(
  url: string,
  options: PgDaemonDatabaseOptions = {},
): Promise<pg.Pool> {
  const driver = await pgDriver();
  const pool = new driver.Pool({
    connectionString: url,
    // How an operator tells the daemon's connections apart in pg_stat_activity (an
    // application_name in the URL wins).
    fallback_application_name: daemonApplicationName,
    types: pgTypesOf(driver),
    max: options.max ?? 10,
    ...(options.idleInTransactionMs === undefined
      ? {}
      : { idle_in_transaction_session_timeout: Math.max(1, Math.round(options.idleInTransactionMs)) }),
  });
  keepConnectionErrors(pool);
  try {
    await migratePg(pool, redactedUrl(url));
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** The highest applied migration version (0 for a database that has none). */
async function currentPgSchemaVersion(queryable: Pick<pg.PoolClient, "query">): Promise<number> {
  const result = await queryable.query<{ version: number | null }>(
    "SELECT max(version) AS version FROM schema_version",
  );
  return result.rows[0]?.version ?? 0;
}

async function migratePg(pool: pg.Pool, label: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // Per schema: suites (or clusters) in other schemas of the database do not wait on each other.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('skein.migrate.' || current_schema()))");
    await client.query(schemaVersionTable("postgres"));
    const pending = pendingMigrations(await currentPgSchemaVersion(client), label, "postgres");
    for (const { version, statements } of pending) {
      for (const statement of statements) await client.query(statement);
      await client.query("INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)", [
        version,
        Date.now(),
      ]);
    }
    await createPgTranscriptSchema(client);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
