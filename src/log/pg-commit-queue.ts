/**
 * The group commit (commit-queue.ts) on PostgreSQL: a batch is one transaction on one client of
 * the pool, each write in a savepoint of it (a lone write needs none: if it throws, the whole
 * transaction is its own), so N concurrent writes of many sessions cost about one COMMIT.
 *
 * Boundary rule: one transaction in flight at a time (the queue's rule), so the writes of one
 * node never wait on each other's row locks. PostgreSQL's COMMIT returns once the commit is
 * durable: a write is written and durable at one moment.
 */
import type pg from "pg";
import type {
  BatchResult,
  BatchScope,
  BatchTransactions,
  QueuedWrite,
  WriteOutcome,
} from "./commit-queue.js";
import { CommitQueue } from "./commit-queue.js";

type Client = pg.PoolClient;

class PgTransactions implements BatchTransactions<Client> {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async commit(batch: readonly QueuedWrite<Client>[], scope: BatchScope<Client>): Promise<BatchResult> {
    const client = await this.#pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN");
      scope.opened(client);
      const alone = batch.length === 1;
      const outcomes: WriteOutcome[] = [];
      for (const write of batch) {
        if (!alone) await client.query("SAVEPOINT w");
        try {
          const value = await write.run(client);
          if (!alone) await client.query("RELEASE SAVEPOINT w");
          scope.settled(true);
          outcomes.push({ value });
        } catch (error) {
          // The savepoint's locks are released with it: so are the write's notes.
          scope.settled(false);
          if (!alone) await client.query("ROLLBACK TO SAVEPOINT w");
          outcomes.push({ error });
        }
      }
      if (alone && "error" in outcomes[0]!) await client.query("ROLLBACK");
      else await client.query("COMMIT");
      return { kind: "committed", outcomes, durable: null };
    } catch (error) {
      // The connection or the COMMIT failed: nothing of this batch is known to be committed.
      broken = true;
      await client.query("ROLLBACK").catch(() => undefined);
      client.release(error instanceof Error ? error : true);
      throw error;
    } finally {
      if (!broken) client.release();
    }
  }
}

export class PgCommitQueue extends CommitQueue<Client> {
  /** A queue on `pool`; at most `maxBatch` writes share one transaction (default 256). */
  constructor(pool: pg.Pool, options: { maxBatch?: number } = {}) {
    super(new PgTransactions(pool), { maxBatch: options.maxBatch ?? 256 });
  }
}
