/**
 * The storage port on PostgreSQL: the log's `transcript` tables (through `PgStore`) and the
 * daemon's tables in one database, written through one group commit (pg-commit-queue.ts), so the
 * writes of many sessions queued while a transaction is in flight share the next one, and a
 * session's log and its rows never disagree. The table logic is the same SQL programs the SQLite
 * backend runs; in a cluster every write of a session passes the node's fence (`fenceWith`).
 *
 * Boundary rule: this file only builds the PostgreSQL backend; what the storage does with it is
 * backend-session-storage.ts's, the same as on SQLite.
 */
import type pg from "pg";
import type { HeadSigner } from "../../log/head-signer.js";
import { PgCheckpointRecords } from "../../log/pg-checkpoint-records.js";
import { PgStore } from "../../log/pg-store.js";
import { BackendSessionStorage } from "./backend-session-storage.js";
import { runPg } from "./pg-runner.js";

export class PgSessionStorage extends BackendSessionStorage<pg.PoolClient> {
  readonly pool: pg.Pool;
  /** The log store (every view shares it). */
  readonly log: PgStore;

  /** Storage on a migrated pool (see pg-database.ts); it ends the pool on close(). */
  constructor(pool: pg.Pool, options: { signer?: HeadSigner } = {}) {
    const log = new PgStore(pool, { ownsPool: false, ...options });
    super({
      log,
      checkpoints: new PgCheckpointRecords(pool, options.signer),
      run: (client, program) => runPg(client, program),
      read: (program) => runPg(pool, program),
      outsideTransaction: async (work) => {
        const client = await pool.connect();
        try {
          return await work(client);
        } finally {
          client.release();
        }
      },
      stats: () => ({}),
      close: async () => {
        await log.close();
        await pool.end();
      },
    });
    this.pool = pool;
    this.log = log;
  }
}
