/**
 * What the PostgreSQL group commit adds to the shared queue behaviour (covered by the
 * transactional store contract on both backends), on the real server: its bound on a batch, and
 * a memo only for a client in one of its transactions.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgCommitQueue } from "../../src/log/pg-commit-queue.js";
import { createPgSchema, type PgSchema } from "../support/pg-schema.js";

let schema: PgSchema;
let pool: pg.Pool;

beforeAll(async () => {
  schema = await createPgSchema("skein_queue");
  pool = new pg.Pool({ connectionString: schema.url, max: 2 });
});

afterAll(async () => {
  await pool.end();
  await schema.drop();
});

describe("the PostgreSQL commit queue", () => {
  it("puts at most maxBatch writes in one transaction, committing them in the order queued", async () => {
    const queue = new PgCommitQueue(pool, { maxBatch: 2 });
    const order: number[] = [];
    const transactions = new Set<number>();
    await Promise.all(
      [0, 1, 2, 3, 4].map((n) =>
        queue.run("s", async (client) => {
          order.push(n);
          const { rows } = await client.query<{ id: string }>("SELECT txid_current()::text AS id");
          transactions.add(Number(rows[0]!.id));
        }),
      ),
    );
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(transactions.size).toBe(3);
    expect(queue.stats()).toEqual({ transactions: 3, requests: 5 });
    await queue.close();
  });

  it("gives no memo for a client that holds none of its transactions", async () => {
    const queue = new PgCommitQueue(pool);
    const other = await pool.connect();
    try {
      await queue.run("s", async () => {
        expect(queue.memoOf(other)).toBeNull();
      });
    } finally {
      other.release();
    }
    await queue.close();
  });
});
