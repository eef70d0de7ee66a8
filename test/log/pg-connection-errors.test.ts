/**
 * A pooled PostgreSQL client whose backend ends while it is checked out (a server restart, a
 * DBA's `pg_terminate_backend`) must fail the work that holds it, never the process: on the
 * real server, with the backend of this test's own connection terminated.
 */
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPgDaemonDatabase } from "../../src/daemon/storage/pg-database.js";
import { isStorageUnavailable } from "../../src/daemon/storage/storage-unavailable.js";
import { PgStore } from "../../src/log/pg-store.js";
import { createPgSchema, type PgSchema } from "../support/pg-schema.js";

let schema: PgSchema;
const uncaught: unknown[] = [];
const record = (error: unknown) => uncaught.push(error);

beforeEach(async () => {
  schema = await createPgSchema("skein_pg_errors");
  uncaught.length = 0;
  // An 'error' event nobody listens to is thrown where the socket delivers it: recorded here
  // (instead of ending the test worker) so the test can say so.
  process.prependListener("uncaughtException", record);
});

afterEach(async () => {
  process.removeListener("uncaughtException", record);
  await schema.drop();
});

/** Terminate the backend serving `client` (this test's own connection only). */
async function terminateBackendOf(client: pg.PoolClient): Promise<void> {
  const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
  const admin = new pg.Client({ connectionString: schema.url });
  await admin.connect();
  try {
    await admin.query("SELECT pg_terminate_backend($1)", [pid]);
  } finally {
    await admin.end();
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
}

describe("pools whose checked-out client loses its backend", () => {
  const pools: Array<[string, () => Promise<pg.Pool>]> = [
    ["the daemon's pool", () => openPgDaemonDatabase(schema.url, { max: 2 })],
    ["a log store's own pool", async () => (await PgStore.open(schema.url)).pool],
  ];

  for (const [name, open] of pools) {
    it(`${name}: the holder's next query fails as storage unavailable, the process lives on, and the pool serves again`, async () => {
      const pool = await open();
      try {
        const client = await pool.connect();
        await client.query("BEGIN");
        await terminateBackendOf(client);

        expect(uncaught).toEqual([]);
        const failure = await client.query("SELECT 1").then(
          () => null,
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(Error);
        expect(isStorageUnavailable(failure)).toBe(true);
        client.release(failure as Error);
        expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
      } finally {
        await pool.end();
      }
    });
  }
});

describe("a transaction the server ends for idling (idle_in_transaction_session_timeout)", () => {
  it("fails its holder's next query as storage unavailable (a paused node's commit is retried, not a 500)", async () => {
    const pool = await openPgDaemonDatabase(schema.url, { max: 2, idleInTransactionMs: 200 });
    try {
      const client = await pool.connect();
      await client.query("BEGIN");
      // As a node paused past the timeout (SIGSTOP) does: the event loop does not run while the
      // server ends the session, so the server's FATAL answer is read as the next query's.
      const pausedUntil = Date.now() + 700;
      while (Date.now() < pausedUntil) {
        // busy: nothing reads the socket
      }
      const failure = await client.query("SELECT 1").then(
        () => null,
        (error: unknown) => error,
      );
      client.release(failure instanceof Error ? failure : true);
      expect(failure).toBeInstanceOf(Error);
      expect(isStorageUnavailable(failure)).toBe(true);
      expect(uncaught).toEqual([]);
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it("classifies the server's words for it by their SQLSTATE, and other transaction-state errors not", () => {
    const pgError = (code: string, message: string) =>
      Object.assign(new Error(message), { code, severity: "FATAL" });
    expect(
      isStorageUnavailable(pgError("25P03", "terminating connection due to idle-in-transaction timeout")),
    ).toBe(true);
    expect(isStorageUnavailable(pgError("25P04", "terminating connection due to transaction timeout"))).toBe(
      true,
    );
    expect(isStorageUnavailable(pgError("25P02", "current transaction is aborted"))).toBe(false);
  });
});
