/**
 * The PostgreSQL group commit's per-transaction memo, on the real server: what a write notes is
 * seen by the later writes of its transaction, dropped with the write's savepoint when it fails
 * (as PostgreSQL drops the locks it took), and gone when the transaction ends.
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

describe("the PostgreSQL commit queue's transaction memo", () => {
  it("shows a write's notes to the later writes of its transaction, and to none after it", async () => {
    const queue = new PgCommitQueue(pool);
    const seen: boolean[] = [];
    let used: pg.PoolClient | null = null;
    await Promise.all([
      queue.run("s", async (client) => {
        used = client;
        seen.push(queue.memoOf(client)!.has("k"));
        queue.memoOf(client)!.add("k");
        seen.push(queue.memoOf(client)!.has("k"));
      }),
      queue.run("s", async (client) => {
        seen.push(queue.memoOf(client)!.has("k"));
      }),
    ]);
    expect(queue.stats().transactions).toBe(1);
    expect(seen).toEqual([false, true, true]);
    expect(queue.memoOf(used!)).toBeNull();
    await queue.run("s", async (client) => {
      expect(queue.memoOf(client)!.has("k")).toBe(false);
    });
    await queue.close();
  });

  it("drops the notes of a write rolled back to its savepoint, and forgets a note deleted", async () => {
    const queue = new PgCommitQueue(pool);
    const seen: Record<string, boolean> = {};
    const outcomes = await Promise.allSettled([
      queue.run("s", async (client) => {
        queue.memoOf(client)!.add("kept");
      }),
      queue.run("s", async (client) => {
        queue.memoOf(client)!.add("failed");
        throw new Error("this write fails after noting");
      }),
      queue.run("s", async (client) => {
        const memo = queue.memoOf(client)!;
        seen.failed = memo.has("failed");
        seen.kept = memo.has("kept");
        memo.delete("kept");
      }),
      queue.run("s", async (client) => {
        seen.deleted = queue.memoOf(client)!.has("kept");
      }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(queue.stats().transactions).toBe(1);
    expect(seen).toEqual({ failed: false, kept: true, deleted: false });
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
