/**
 * Restore from a signed state checkpoint and the background check of the prefix before it, on
 * real SQLite files and a real PostgreSQL: what a database writer can do to the rows, the
 * checkpoint and its signature, and that each is caught (at restore or by the prefix check).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import type { CheckpointRecords } from "../../src/log/checkpoint-records.js";
import { collectState } from "../../src/log/collect-state.js";
import type { LogEntry } from "../../src/log/entries.js";
import { LogCorruptError } from "../../src/log/errors.js";
import { HeadSigner } from "../../src/log/head-signer.js";
import { PgCheckpointRecords } from "../../src/log/pg-checkpoint-records.js";
import { PgStore } from "../../src/log/pg-store.js";
import { appendEntries } from "../../src/log/session-writer.js";
import { SqliteCheckpointRecords } from "../../src/log/sqlite-checkpoint-records.js";
import { SqliteStore } from "../../src/log/sqlite-store.js";
import { checkpointOf, type StateCheckpoint } from "../../src/log/state-checkpoint.js";
import type { Store } from "../../src/log/store.js";
import { restoreLog, verifyPrefix } from "../../src/log/tail-restore.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import { rejectionOf } from "../support/rejection.js";
import { startedForEachTest } from "../support/started-for-describe.js";

const connectionString = process.env.SKEIN_TEST_PG ?? "postgres://postgres@127.0.0.1:5432/test";

/** A store with signed heads, its checkpoint rows, and raw SQL on its database (`$n` parameters). */
interface Backend {
  store: Store;
  signer: HeadSigner;
  records: CheckpointRecords<unknown>;
  writeCheckpoint(sessionId: string, checkpoint: StateCheckpoint, signer?: HeadSigner): Promise<void>;
  exec(sql: string, params: unknown[]): Promise<void>;
  text(sql: string, params: unknown[]): Promise<string>;
  close(): Promise<void>;
}

async function sqliteBackend(): Promise<Backend> {
  const dir = mkdtempSync(join(tmpdir(), "skein-tail-"));
  const signer = HeadSigner.generate();
  const store = new SqliteStore(join(dir, "log.db"), { signer });
  const records = new SqliteCheckpointRecords(store.db, signer);
  const sqlite = (sql: string) => store.db.prepare(sql.replace(/\$\d+/g, "?"));
  return {
    store,
    signer,
    records: records as CheckpointRecords<unknown>,
    async writeCheckpoint(sessionId, checkpoint, by = signer) {
      new SqliteCheckpointRecords(store.db, by).write(store.db, sessionId, checkpoint);
    },
    async exec(sql, params) {
      sqlite(sql).run(...params);
    },
    async text(sql, params) {
      return sqlite(sql)
        .pluck()
        .get(...params) as string;
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function pgBackend(): Promise<Backend> {
  const schema = `skein_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const signer = HeadSigner.generate();
  const store = await PgStore.open(
    { connectionString, options: `-c search_path=${schema}`, max: 4 },
    { signer },
  );
  const records = new PgCheckpointRecords(store.pool, signer);
  return {
    store,
    signer,
    records: records as CheckpointRecords<unknown>,
    async writeCheckpoint(sessionId, checkpoint, by = signer) {
      const client = await store.pool.connect();
      try {
        await new PgCheckpointRecords(store.pool, by).write(client, sessionId, checkpoint);
      } finally {
        client.release();
      }
    },
    async exec(sql, params) {
      await store.pool.query(sql, params);
    },
    async text(sql, params) {
      const result = await store.pool.query<{ value: string }>(sql, params);
      return Object.values(result.rows[0]!)[0] as string;
    },
    async close() {
      await store.close();
      const client = new pg.Client({ connectionString });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

/** A session of `turns` turns (five entries each after its start). */
function turnsOf(turns: number): LogEntry[] {
  const entries: LogEntry[] = [
    { kind: "session_start", ts: 1, system_prompt: "sys", config: { max_tokens: 100 }, history: [] },
  ];
  for (let i = 0; i < turns; i++) {
    entries.push(
      { kind: "user_input", ts: 10 + i, item: userMessage(`question ${i}`) },
      { kind: "assistant_items", ts: 20 + i, items: [assistantMessage(`answer ${i}`)] },
      {
        kind: "llm_usage",
        ts: 30 + i,
        history_len: 2 * i + 1,
        input_total_tokens: 10 * i,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        output_tokens: 5,
      },
      { kind: "turn_end", ts: 40 + i, turn_count: i + 1 },
      { kind: "run_outcome", ts: 50 + i, outcome: { type: "finished" }, interrupted: false },
    );
  }
  return entries;
}

describe.each([
  ["SQLite", sqliteBackend],
  ["PostgreSQL", pgBackend],
])("restore from a state checkpoint (%s)", (_name, open) => {
  const current = startedForEachTest(open, (backend) => backend.close());
  const at = 30;

  /** A session of 61 entries with a checkpoint at position `at`, and its entries as written. */
  async function session(): Promise<{ id: string; checkpoint: StateCheckpoint }> {
    const { store } = current;
    const id = uuidv7();
    const entries = turnsOf(12);
    const head = { sessionId: id, hash: null as string | null };
    await appendEntries(store, head, entries);
    const all = await store.readAll(id);
    const checkpoint = checkpointOf(collectState(all.slice(0, at + 1)), all[at]!);
    await current.writeCheckpoint(id, checkpoint);
    return { id, checkpoint };
  }

  const corruption = (promise: Promise<unknown>) => rejectionOf(promise, (e) => e instanceof LogCorruptError);

  it("restores the whole replay's state from the checkpoint and reads only the entries from it on", async () => {
    const { id, checkpoint } = await session();
    const restored = await restoreLog(current.store, current.records, id);
    expect(restored.state).toEqual(collectState(await current.store.readAll(id)));
    expect(restored.entries[0]!.position).toBe(at);
    expect(restored.entries).toHaveLength(61 - at);
    expect(await verifyPrefix(current.store, id, checkpoint, { pageSize: 7 })).toBe(true);
  });

  it("reads the whole log when the session has no checkpoint", async () => {
    const { id } = await session();
    await current.exec("DELETE FROM transcript_checkpoints WHERE session = $1", [id]);
    const restored = await restoreLog(current.store, current.records, id);
    expect(restored.checkpoint).toBeNull();
    expect(restored.entries).toHaveLength(61);
  });

  it("finds a tampered prefix row in the background check, though restore does not read it", async () => {
    const { id, checkpoint } = await session();
    const text = await current.text("SELECT entry FROM transcript WHERE session = $1 AND position = $2", [
      id,
      6,
    ]);
    const changed = text.replace("question", "Question");
    expect(changed).not.toBe(text);
    await current.exec("UPDATE transcript SET entry = $1 WHERE session = $2 AND position = $3", [
      changed,
      id,
      6,
    ]);
    await restoreLog(current.store, current.records, id);
    const error = await corruption(verifyPrefix(current.store, id, checkpoint, { pageSize: 4 }));
    expect(error.position).toBe(6);
  });

  it("finds a deleted prefix row in the background check", async () => {
    const { id, checkpoint } = await session();
    await current.exec("DELETE FROM transcript WHERE session = $1 AND position = $2", [id, 12]);
    const error = await corruption(verifyPrefix(current.store, id, checkpoint, { pageSize: 4 }));
    expect(error.position).toBeLessThanOrEqual(12);
  });

  it("finds a prefix cut back to nothing before the checkpoint in the background check", async () => {
    const { id, checkpoint } = await session();
    await current.exec("DELETE FROM transcript WHERE session = $1 AND position < $2", [id, at]);
    await corruption(verifyPrefix(current.store, id, checkpoint));
  });

  it("refuses a checkpoint whose state was changed behind the store (its signature fails)", async () => {
    const { id } = await session();
    const state = await current.text("SELECT state FROM transcript_checkpoints WHERE session = $1", [id]);
    const forged = state.replace('"request_count":6', '"request_count":60');
    expect(forged).not.toBe(state);
    await current.exec("UPDATE transcript_checkpoints SET state = $1 WHERE session = $2", [forged, id]);
    const error = await corruption(restoreLog(current.store, current.records, id));
    expect(error.reason).toContain("signature does not verify");
  });

  it("refuses a checkpoint signed by a key not trusted here", async () => {
    const { id, checkpoint } = await session();
    await current.exec("DELETE FROM transcript_checkpoints WHERE session = $1", [id]);
    await current.writeCheckpoint(id, checkpoint, HeadSigner.generate());
    const error = await corruption(restoreLog(current.store, current.records, id));
    expect(error.reason).toContain("not trusted");
  });

  it("refuses a checkpoint that points past the log's head", async () => {
    const { id, checkpoint } = await session();
    await current.writeCheckpoint(id, { ...checkpoint, position: 70 });
    const error = await corruption(restoreLog(current.store, current.records, id));
    expect(error.reason).toContain("past the log's head");
  });

  it("refuses a checkpoint that names another entry than the log holds at its position", async () => {
    const { id, checkpoint } = await session();
    await current.writeCheckpoint(id, { ...checkpoint, position: at + 2 });
    const error = await corruption(restoreLog(current.store, current.records, id));
    expect(error.reason).toContain("not the one the state checkpoint names");
  });

  it("finds in the background check a signed checkpoint whose state is not the log's replay", async () => {
    const { id, checkpoint } = await session();
    const wrong = checkpointOf({ ...collectState([]), request_count: 99 }, checkpoint);
    await current.exec("DELETE FROM transcript_checkpoints WHERE session = $1", [id]);
    await current.writeCheckpoint(id, wrong);
    const restored = await restoreLog(current.store, current.records, id);
    const error = await corruption(verifyPrefix(current.store, id, restored.checkpoint!));
    expect(error.reason).toContain("not the replay");
  });
});
