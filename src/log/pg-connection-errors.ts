/**
 * Lost PostgreSQL connections as errors of the work that used them, never of the process.
 *
 * Boundary rule: node-postgres's pool listens for errors on its idle clients only. A client that
 * is checked out (a transaction between two statements, a read in progress) and whose backend
 * ends (a server restart, `pg_terminate_backend`) emits 'error', and an 'error' event nobody
 * listens to ends the process. Every pool this package or the daemon opens goes through here.
 */
import type pg from "pg";

/**
 * Give every client of `pool` an error listener for its whole life (and the pool one for its
 * idle clients); the client then refuses further queries (its holder's query fails, which
 * the storage reports as unavailable) and is dropped from the pool when released.
 */
export function keepConnectionErrors(pool: pg.Pool): void {
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
}
