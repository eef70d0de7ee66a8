import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import { buildChain, canonicalTextOf, computeHash } from "../../src/log/entry-hash.js";
import { InvalidAppendError, LogCorruptError } from "../../src/log/errors.js";
import { createTranscriptSchema, SqliteStore } from "../../src/log/sqlite-store.js";
import { expectEveryByteChangeCaught } from "./byte-flips.js";
import { expectNoInterleaving } from "./concurrent-writers.js";
import { corruptRow } from "./sqlite-tampering.js";
import { describeStoreContract, sampleEntries, writeSession } from "./store-contract.js";
import { withTempStore } from "./temp-store.js";
import { describeTransactionalStoreContract } from "./transactional-store-contract.js";

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "skein-sqlite-store-"));
}

describeStoreContract("SqliteStore", async (options = {}) => {
  const dir = tempDir();
  const file = join(dir, "log.sqlite");
  const store = new SqliteStore(file, options);
  const behind = (work: (db: Database.Database) => void) => async () => {
    const db = new Database(file);
    try {
      work(db);
    } finally {
      db.close();
    }
  };
  return {
    store,
    openAnother: async () => new SqliteStore(file, options),
    corruptEntry: (sessionId, position) => behind((db) => corruptRow(db, sessionId, position))(),
    cutTail: (sessionId, keep) =>
      behind((db) =>
        db.prepare("DELETE FROM transcript WHERE session = ? AND position >= ?").run(sessionId, keep),
      )(),
    rewriteTail: (sessionId, from, chain, signed) =>
      behind((db) => {
        db.prepare("DELETE FROM transcript WHERE session = ? AND position >= ?").run(sessionId, from);
        const insert = db.prepare(
          "INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES (?, ?, ?, ?, ?, ?, 0)",
        );
        for (const [i, hashed] of chain.entries()) {
          insert.run(
            sessionId,
            from + i,
            hashed.hash,
            hashed.prev_hash,
            hashed.entry.kind,
            canonicalTextOf(hashed),
          );
        }
        db.prepare("UPDATE transcript_heads SET position = ?, hash = ? WHERE session = ?").run(
          from + chain.length - 1,
          chain.at(-1)!.hash,
          sessionId,
        );
        if (signed !== undefined)
          db.prepare("UPDATE transcript_heads SET signature = ?, key_id = ? WHERE session = ?").run(
            signed?.signature ?? null,
            signed?.key_id ?? null,
            sessionId,
          );
      })(),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describeTransactionalStoreContract("SqliteStore", async () => {
  const dir = tempDir();
  const file = join(dir, "log.sqlite");
  const store = new SqliteStore(file);
  return {
    store,
    openAnother: async (options = {}) => new SqliteStore(file, options),
    corruptEntry: async (sessionId, position) => corruptRow(store.db, sessionId, position),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe("SqliteStore", () => {
  const t = withTempStore("skein-sqlite-store-", (dir) => new SqliteStore(join(dir, "log.sqlite")));
  const file = () => join(t.dir, "log.sqlite");

  it("records a head for every session of a database written before recorded heads existed", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(3));
    await t.store.close();
    const old = new Database(file());
    old.exec("DROP TABLE transcript_heads");
    old.close();
    t.store = new SqliteStore(file());
    expect((await t.store.readAll(id)).map((entry) => entry.hash)).toEqual(chain.map((entry) => entry.hash));
    expect(await t.store.readHeadRecord(id)).toEqual({ position: 2, hash: chain[2]!.hash, signed: null });
  });

  it("makes the transcript's seq a plain rowid (no sqlite_sequence), and keeps appending to a table made with AUTOINCREMENT", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(2));
    const tables = () =>
      t.store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables()).not.toContain("sqlite_sequence");
    await t.store.close();
    // A database made before: the same columns with `seq … AUTOINCREMENT`.
    const old = new Database(file());
    const ddl = old
      .prepare("SELECT sql FROM sqlite_master WHERE name = 'transcript'")
      .pluck()
      .get() as string;
    old.exec(`ALTER TABLE transcript RENAME TO transcript_new;
      ${ddl.replace("INTEGER PRIMARY KEY", "INTEGER PRIMARY KEY AUTOINCREMENT")};
      INSERT INTO transcript SELECT * FROM transcript_new; DROP TABLE transcript_new;`);
    old.close();
    t.store = new SqliteStore(file());
    expect(tables()).toContain("sqlite_sequence");
    const more = uuidv7();
    const chain = await writeSession(t.store, more, sampleEntries(3));
    expect((await t.store.readAll(more)).map((entry) => entry.hash)).toEqual(
      chain.map((entry) => entry.hash),
    );
    expect(await t.store.readAll(id)).toHaveLength(2);
  });

  it("opens its database durably: WAL and synchronous=FULL", () => {
    expect(t.store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(t.store.db.pragma("synchronous", { simple: true })).toBe(2);
  });

  it("stores one row per entry with the canonical entry text", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(3));
    const rows = t.store.db
      .prepare("SELECT session, position, hash, prev_hash, kind, entry FROM transcript ORDER BY seq")
      .all() as {
      session: string;
      position: number;
      hash: string;
      prev_hash: string | null;
      kind: string;
      entry: string;
    }[];
    expect(rows.map((r) => [r.session, r.position, r.hash, r.prev_hash, r.kind, r.entry])).toEqual(
      chain.map((e, i) => [id, i, e.hash, e.prev_hash, e.entry.kind, canonicalJson(e.entry)]),
    );
  });

  it("detects a tampered byte changed with SQL and names the position", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(5));
    t.store.db
      .prepare("UPDATE transcript SET entry = replace(entry, 'question 3', 'questioN 3') WHERE session = ?")
      .run(id);
    const error = await t.corruptionOf(id);
    expect(error.position).toBe(3);
    expect(error.reason).toContain("hash mismatch");
  });

  it("detects a removed middle row", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(5));
    t.store.db.prepare("DELETE FROM transcript WHERE session = ? AND position = 2").run(id);
    expect((await t.corruptionOf(id)).position).toBe(2);
    const error = await t.store.readRange(id, 1, 3).catch((e: unknown) => e);
    expect((error as LogCorruptError).position).toBe(2);
  });

  it("detects a removed row at the end of a range that later rows follow", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(6));
    t.store.db.prepare("DELETE FROM transcript WHERE session = ? AND position = 3").run(id);
    const error = await t.store.readRange(id, 1, 3).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LogCorruptError);
    expect((error as LogCorruptError).position).toBe(3);
  });

  it("detects a wrong prev_hash even when the row's own hash was recomputed", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(4));
    const forgedPrev = chain[0]!.hash;
    t.store.db
      .prepare("UPDATE transcript SET prev_hash = ?, hash = ? WHERE session = ? AND position = 2")
      .run(forgedPrev, computeHash(forgedPrev, chain[2]!.entry), id);
    expect((await t.corruptionOf(id)).position).toBe(2);
  });

  it("detects an unparseable entry and a kind column that disagrees with the entry", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(4));
    t.store.db.prepare("UPDATE transcript SET kind = 'turn_end' WHERE session = ? AND position = 1").run(id);
    expect((await t.corruptionOf(id)).position).toBe(1);
    t.store.db
      .prepare(
        "UPDATE transcript SET kind = 'user_input', entry = '{oops' WHERE session = ? AND position = 1",
      )
      .run(id);
    const error = await t.corruptionOf(id);
    expect(error.position).toBe(1);
    expect(error.reason).toContain("unparseable");
  });

  it("detects any single-byte change to a stored row's entry at that row's position", async () => {
    await expectEveryByteChangeCaught(
      () => t.store,
      ({ sessionId, entries, pick, offset, delta }) => {
        const position = pick % entries.length;
        const bytes = Buffer.from(
          t.store.db
            .prepare<[string, number], string>(
              "SELECT entry FROM transcript WHERE session = ? AND position = ?",
            )
            .pluck()
            .get(sessionId, position)!,
          "utf8",
        );
        const at = offset % bytes.length;
        bytes[at] = (bytes[at]! + delta) % 256;
        // CAST keeps the raw bytes (even invalid UTF-8) as TEXT, as a disk-level edit would.
        t.store.db
          .prepare("UPDATE transcript SET entry = CAST(? AS TEXT) WHERE session = ? AND position = ?")
          .run(bytes, sessionId, position);
        return position;
      },
    );
  });

  it("keeps a corrupt session from affecting the others in the same table", async () => {
    const bad = uuidv7();
    const good = uuidv7();
    await writeSession(t.store, bad, sampleEntries(3));
    await writeSession(t.store, good, sampleEntries(3));
    t.store.db.prepare("UPDATE transcript SET entry = '{}' WHERE session = ? AND position = 0").run(bad);
    await expect(t.store.readAll(bad)).rejects.toBeInstanceOf(LogCorruptError);
    expect(await t.store.readAll(good)).toHaveLength(3);
    expect(await t.store.listSessions()).toEqual([good, bad]);
  });

  it("commits the caller's writes alongside a group-committed append, or neither", async () => {
    t.store.db.exec("CREATE TABLE receipts (session TEXT, position INTEGER)");
    const insert = t.store.db.prepare("INSERT INTO receipts VALUES (?, ?)");
    const kept = uuidv7();
    const refused = uuidv7();
    const results = await Promise.allSettled([
      t.store.append(kept, buildChain(null, sampleEntries(2)), (_db, head) => {
        insert.run(kept, head.position);
      }),
      t.store.append(refused, buildChain(null, sampleEntries(2)), () => {
        insert.run(refused, 0);
        throw new Error("the receipt cannot be written");
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error("the receipt cannot be written"));
    expect(t.store.db.prepare("SELECT session, position FROM receipts").all()).toEqual([
      { session: kept, position: 1 },
    ]);
    expect(await t.store.readAll(kept)).toHaveLength(2);
    expect(await t.store.exists(refused)).toBe(false);
  });

  it("refuses writes alongside an append that are not synchronous, writing nothing", async () => {
    const id = uuidv7();
    await expect(
      t.store.append(id, buildChain(null, sampleEntries(1)), async () => undefined),
    ).rejects.toBeInstanceOf(InvalidAppendError);
    expect(await t.store.exists(id)).toBe(false);
  });

  it("appends synchronously inside the caller's own transaction on its connection, committing and rolling back with it", async () => {
    const db = new Database(join(t.dir, "daemon.sqlite"));
    try {
      db.pragma("journal_mode = WAL");
      db.exec("CREATE TABLE inputs (id TEXT PRIMARY KEY, state TEXT NOT NULL)");
      const shared = new SqliteStore(db);
      const id = uuidv7();
      const chain = buildChain(null, sampleEntries(3));

      db.transaction(() => {
        shared.appendInTransaction(db, id, chain.slice(0, 2));
        db.prepare("INSERT INTO inputs VALUES ('i1', 'committed')").run();
      }).immediate();
      expect(await shared.readAll(id)).toHaveLength(2);

      expect(() =>
        db.transaction(() => {
          shared.appendInTransaction(db, id, chain.slice(2));
          db.prepare("INSERT INTO inputs VALUES ('i1', 'duplicate')").run();
        })(),
      ).toThrow();
      expect(await shared.readAll(id)).toHaveLength(2);

      // Outside any transaction it is its own.
      expect(shared.appendInTransaction(db, id, chain.slice(2))).toEqual({
        hash: chain[2]!.hash,
        position: 2,
      });
      // Never on another connection: its writes would not be in the caller's transaction.
      const other = new Database(join(t.dir, "daemon.sqlite"));
      try {
        expect(() => shared.appendInTransaction(other, uuidv7(), buildChain(null, sampleEntries(1)))).toThrow(
          /its own connection/,
        );
        expect(() => shared.deleteInTransaction(other, id)).toThrow(/its own connection/);
      } finally {
        other.close();
      }
      expect(await shared.readAll(id)).toHaveLength(3);
      await shared.close();
      expect(db.open).toBe(true);
    } finally {
      db.close();
    }
  });

  it("creates its schema idempotently on a shared database", async () => {
    const db = new Database(":memory:");
    try {
      createTranscriptSchema(db);
      createTranscriptSchema(db);
      const first = new SqliteStore(db);
      const id = uuidv7();
      first.appendInTransaction(db, id, buildChain(null, sampleEntries(1)));
      expect(await new SqliteStore(db).readAll(id)).toHaveLength(1);
    } finally {
      db.close();
    }
  });

  it("orders rows of every session globally by seq", async () => {
    const one = uuidv7();
    const two = uuidv7();
    const a = buildChain(null, sampleEntries(2));
    const b = buildChain(null, sampleEntries(2));
    await t.store.append(one, [a[0]!]);
    await t.store.append(two, [b[0]!]);
    await t.store.append(one, [a[1]!]);
    const order = t.store.db.prepare("SELECT session, position FROM transcript ORDER BY seq").raw().all();
    expect(order).toEqual([
      [one, 0],
      [two, 0],
      [one, 1],
    ]);
  });

  it("never interleaves a chain when another process appends concurrently", async () => {
    await expectNoInterleaving(t.store, "sqlite", file());
  });
});
