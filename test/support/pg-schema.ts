/**
 * A PostgreSQL schema of its own for one test suite (or one test), on the real server at
 * 127.0.0.1:5432, database `test` (override with SKEIN_TEST_PG), dropped afterwards; and the
 * `SKEIN_DB` URL whose connections use it.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export const pgServerUrl = process.env.SKEIN_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

export interface PgSchema {
  name: string;
  /** A SKEIN_DB URL whose connections put this schema first on their search_path. */
  url: string;
  /** Run a statement in the schema (tests that look at the stored rows). */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<R[]>;
  drop(): Promise<void>;
}

/** Create a fresh schema (on the shared test server unless `serverUrl` names another). */
export async function createPgSchema(prefix = "skein_test", serverUrl = pgServerUrl): Promise<PgSchema> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${name}`);
  } finally {
    await admin.end();
  }
  const separator = serverUrl.includes("?") ? "&" : "?";
  const url = `${serverUrl}${separator}options=${encodeURIComponent(`-c search_path=${name}`)}`;
  return {
    name,
    url,
    async query(sql, params = []) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}
