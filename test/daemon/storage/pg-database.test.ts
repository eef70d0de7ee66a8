/**
 * The daemon's PostgreSQL pool as an operator sees it: its connections carry a name in
 * pg_stat_activity, the URL's own application_name winning.
 */
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { daemonApplicationName, openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";

let schema: PgSchema;
let pool: pg.Pool | null = null;

beforeEach(async () => {
  schema = await createPgSchema("skein_pg_database");
});

afterEach(async () => {
  await pool?.end();
  pool = null;
  await schema.drop();
});

/** The application_name a pooled connection of `opened` runs under. */
async function applicationNameOf(opened: pg.Pool): Promise<string> {
  const result = await opened.query<{ name: string }>("SELECT current_setting('application_name') AS name");
  return result.rows[0]!.name;
}

describe("the daemon's PostgreSQL pool", () => {
  it(`shows its connections as ${daemonApplicationName} when the URL names no application`, async () => {
    pool = await openPgDaemonDatabase(schema.url, { max: 2 });
    expect(await applicationNameOf(pool)).toBe(daemonApplicationName);
  });

  it("keeps the application_name the URL names", async () => {
    pool = await openPgDaemonDatabase(`${schema.url}&application_name=ops_named`, { max: 2 });
    expect(await applicationNameOf(pool)).toBe("ops_named");
  });
});
