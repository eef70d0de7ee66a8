/**
 * PgStore against a real PostgreSQL (127.0.0.1:5432, database `test`, trust auth on these
 * machines; override with SKEIN_TEST_PG). Each harness gets its own schema, dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildChain, canonicalTextOf, hashEntry } from "../../src/log/entry-hash.js";
import { AppendConflictError, LogCorruptError } from "../../src/log/errors.js";
import type { HeadSigner } from "../../src/log/head-signer.js";
import { PgStore } from "../../src/log/pg-store.js";
import { describeStoreContract, sampleEntries, writeSession } from "./store-contract.js";
import { describeTransactionalStoreContract } from "./transactional-store-contract.js";

const connectionString = process.env.SKEIN_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh schema and a store whose connections use it. */
async function isolatedStore(): Promise<{
  schema: string;
  open: (options?: { signer?: HeadSigner }) => Promise<PgStore>;
  drop: () => Promise<void>;
}> {
  const schema = `skein_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    schema,
    open: (options: { signer?: HeadSigner } = {}) =>
      PgStore.open({ connectionString, options: `-c search_path=${schema}`, max: 4 }, options),
    drop: async () => {
      const client = new pg.Client({ connectionString });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** Change the first digit of the entry's ts in the stored row: still valid JSON, different content. */
async function corruptRow(store: PgStore, sessionId: string, position: number): Promise<void> {
  const result = await store.pool.query<{ entry: string }>(
    "SELECT entry FROM transcript WHERE session = $1 AND position = $2",
    [sessionId, position],
  );
  const text = result.rows[0]!.entry;
  const at = text.indexOf('"ts":') + 5;
  const digit = text[at] === "9" ? "8" : String(Number(text[at]) + 1);
  await store.pool.query("UPDATE transcript SET entry = $1 WHERE session = $2 AND position = $3", [
    text.slice(0, at) + digit + text.slice(at + 1),
    sessionId,
    position,
  ]);
}

describeStoreContract("PgStore", async (options = {}) => {
  const isolated = await isolatedStore();
  const store = await isolated.open(options);
  return {
    store,
    openAnother: () => isolated.open(options),
    corruptEntry: (sessionId, position) => corruptRow(store, sessionId, position),
    cutTail: async (sessionId, keep) => {
      await store.pool.query("DELETE FROM transcript WHERE session = $1 AND position >= $2", [
        sessionId,
        keep,
      ]);
    },
    rewriteTail: async (sessionId, from, chain, signed) => {
      await store.pool.query("DELETE FROM transcript WHERE session = $1 AND position >= $2", [
        sessionId,
        from,
      ]);
      for (const [i, hashed] of chain.entries()) {
        await store.pool.query(
          "INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES ($1, $2, $3, $4, $5, $6, 0)",
          [sessionId, from + i, hashed.hash, hashed.prev_hash, hashed.entry.kind, canonicalTextOf(hashed)],
        );
      }
      await store.pool.query("UPDATE transcript_heads SET position = $2, hash = $3 WHERE session = $1", [
        sessionId,
        from + chain.length - 1,
        chain.at(-1)!.hash,
      ]);
      if (signed !== undefined)
        await store.pool.query("UPDATE transcript_heads SET signature = $2, key_id = $3 WHERE session = $1", [
          sessionId,
          signed?.signature ?? null,
          signed?.key_id ?? null,
        ]);
    },
    cleanup: isolated.drop,
  };
});

describeTransactionalStoreContract("PgStore", async () => {
  const isolated = await isolatedStore();
  const store = await isolated.open();
  return {
    store,
    openAnother: (options = {}) => isolated.open(options),
    corruptEntry: (sessionId, position) => corruptRow(store, sessionId, position),
    cleanup: isolated.drop,
  };
});

describe("PgStore", () => {
  let isolated: Awaited<ReturnType<typeof isolatedStore>>;
  let store: PgStore;

  beforeAll(async () => {
    isolated = await isolatedStore();
    store = await isolated.open();
  });

  afterAll(async () => {
    await store.close();
    await isolated.drop();
  });

  it("lets exactly one of many concurrent writers with the same head win, across pools", async () => {
    const id = uuidv7();
    const chain = await writeSession(store, id, sampleEntries(2));
    const others = await Promise.all([isolated.open(), isolated.open()]);
    try {
      const contenders = [store, ...others, store, ...others].map((writer, i) =>
        writer.append(id, [hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 100 + i, turn_count: i })]),
      );
      const results = await Promise.allSettled(contenders);
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      for (const result of results) {
        if (result.status === "rejected") expect(result.reason).toBeInstanceOf(AppendConflictError);
      }
      const entries = await store.readAll(id);
      expect(entries).toHaveLength(3);
    } finally {
      for (const other of others) await other.close();
    }
  });

  it("appends a multi-entry chain atomically and reports the head", async () => {
    const id = uuidv7();
    const chain = buildChain(null, sampleEntries(4));
    expect(await store.append(id, chain)).toEqual({ hash: chain[3]!.hash, position: 3 });
    expect((await store.readAll(id)).map((entry) => entry.hash)).toEqual(chain.map((entry) => entry.hash));
  });

  it("detects a tampered row with the position, and only for that session", async () => {
    const tampered = uuidv7();
    const healthy = uuidv7();
    await writeSession(store, tampered, sampleEntries(4));
    await writeSession(store, healthy, sampleEntries(4));
    await corruptRow(store, tampered, 2);
    const error = await store.readAll(tampered).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LogCorruptError);
    expect((error as LogCorruptError).position).toBe(2);
    expect(await store.readAll(healthy)).toHaveLength(4);
  });

  it("creates its table idempotently", async () => {
    const again = await isolated.open();
    await again.close();
    expect(await store.listSessions()).not.toHaveLength(0);
  });
});
