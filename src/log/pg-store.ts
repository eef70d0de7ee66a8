/**
 * The PostgreSQL store: every session's log in one `transcript` table, one row per entry, so
 * several processes (later: several daemons) can share one database.
 *
 * Boundary rule: PostgreSQL is the arbiter of a compare-and-append. An append reads the head,
 * compares it with the first entry's prev_hash and inserts, in one transaction; two writers that
 * both saw the same head collide on UNIQUE(session, position) and the loser gets
 * `AppendConflictError` with the head it lost to. Durability is PostgreSQL's (commit is durable
 * with the default synchronous_commit). Reads verify exactly like the SQLite store.
 */
import pg from "pg";
import type { HashedEntry, PositionedEntry } from "./entries.js";
import { isEntryHash } from "./entry-hash.js";
import { AppendConflictError, LogCorruptError, SessionNotFoundError } from "./errors.js";
import { prepareAppend } from "./prepared-append.js";
import type { LogHead, Store } from "./store.js";
import { type StoredRow, verifyRows } from "./verify-rows.js";

/** Create the `transcript` table and its index if they do not exist (idempotent). */
export async function createPgTranscriptSchema(queryable: pg.Pool | pg.PoolClient): Promise<void> {
  await queryable.query(`
    CREATE TABLE IF NOT EXISTS transcript (
      seq BIGSERIAL PRIMARY KEY,
      session TEXT NOT NULL,
      position INTEGER NOT NULL,
      hash TEXT NOT NULL,
      prev_hash TEXT,
      kind TEXT NOT NULL,
      entry TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      UNIQUE (session, position)
    )`);
}

const UNIQUE_VIOLATION = "23505";
const SELECT_COLUMNS = "SELECT position, hash, prev_hash, kind, entry FROM transcript";

export class PgStore implements Store {
  private closed = false;

  /**
   * A store on `pool` (its connections must see the `transcript` table, e.g. through their
   * search_path). `ownsPool`: end the pool on close().
   */
  constructor(
    readonly pool: pg.Pool,
    private readonly ownsPool = false,
  ) {}

  /** Connect with `config` (a connection string or pool settings) and make sure the table exists. */
  static async open(config: string | pg.PoolConfig): Promise<PgStore> {
    const pool = new pg.Pool(typeof config === "string" ? { connectionString: config } : config);
    try {
      await createPgTranscriptSchema(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PgStore(pool, true);
  }

  async append(sessionId: string, entries: readonly HashedEntry[]): Promise<LogHead> {
    const prepared = prepareAppend(sessionId, entries);
    const expected = prepared[0]!.hashed.prev_hash;
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const head = await readHeadWith(client, sessionId);
      if ((head?.hash ?? null) !== expected) {
        await client.query("ROLLBACK");
        throw new AppendConflictError(sessionId, expected, head?.hash ?? null);
      }
      const first = head === null ? 0 : head.position + 1;
      const now = Date.now();
      const values: unknown[] = [];
      const rows = prepared.map(({ hashed, text }, i) => {
        const at = values.length;
        values.push(sessionId, first + i, hashed.hash, hashed.prev_hash, hashed.entry.kind, text, now);
        return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $${at + 7})`;
      });
      await client.query(
        `INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES ${rows.join(", ")}`,
        values,
      );
      await client.query("COMMIT");
      return { hash: prepared[prepared.length - 1]!.hashed.hash, position: first + prepared.length - 1 };
    } catch (error) {
      if (error instanceof AppendConflictError) throw error;
      await client.query("ROLLBACK").catch(() => undefined);
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) {
        // Another writer appended after our read of the head: it won, we report what it wrote.
        const actual = await this.readHead(sessionId);
        throw new AppendConflictError(sessionId, expected, actual?.hash ?? null);
      }
      throw error;
    } finally {
      client.release();
    }
  }

  async readAll(sessionId: string): Promise<PositionedEntry[]> {
    const rows = await this.selectRows(`${SELECT_COLUMNS} WHERE session = $1 ORDER BY position`, [sessionId]);
    if (rows.length === 0) throw new SessionNotFoundError(sessionId);
    return verifyRows(sessionId, rows, 0, null);
  }

  async readHead(sessionId: string): Promise<LogHead | null> {
    return readHeadWith(this.pool, sessionId);
  }

  async readRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    if (!Number.isInteger(from) || from < 0 || !(limit >= 0)) {
      throw new RangeError(`invalid range from=${from} limit=${limit}`);
    }
    const end = Math.min(from + limit, 2 ** 31 - 1);
    const client = await this.pool.connect();
    try {
      // One snapshot: the range, its predecessor and the head must agree.
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const rows = await selectRowsWith(
        client,
        `${SELECT_COLUMNS} WHERE session = $1 AND position >= $2 AND position < $3 ORDER BY position`,
        [sessionId, from, end],
      );
      let prevHash: string | null = null;
      if (from > 0) {
        const predecessor = await client.query<{ hash: string }>(
          "SELECT hash FROM transcript WHERE session = $1 AND position = $2",
          [sessionId, from - 1],
        );
        const hash = predecessor.rows[0]?.hash;
        if (hash === undefined) {
          if (rows.length > 0) throw new LogCorruptError(sessionId, from - 1, "the entry is missing");
          if ((await readHeadWith(client, sessionId)) === null) throw new SessionNotFoundError(sessionId);
          return [];
        }
        if (!isEntryHash(hash))
          throw new LogCorruptError(sessionId, from - 1, "hash is not 64 lowercase hex digits");
        prevHash = hash;
      } else if (rows.length === 0 && (await readHeadWith(client, sessionId)) === null) {
        throw new SessionNotFoundError(sessionId);
      }
      const entries = verifyRows(sessionId, rows, from, prevHash);
      // A short range must really be the end of the log, not a gap before later entries.
      if (entries.length < end - from) {
        const head = await readHeadWith(client, sessionId);
        const missing = from + entries.length;
        if (head !== null && head.position >= missing) {
          throw new LogCorruptError(sessionId, missing, "the entry is missing");
        }
      }
      return entries;
    } finally {
      await client.query("COMMIT").catch(() => undefined);
      client.release();
    }
  }

  async listSessions(): Promise<string[]> {
    const result = await this.pool.query<{ session: string }>(
      "SELECT DISTINCT session FROM transcript ORDER BY session DESC",
    );
    return result.rows.map((row) => row.session);
  }

  async exists(sessionId: string): Promise<boolean> {
    const result = await this.pool.query("SELECT 1 FROM transcript WHERE session = $1 LIMIT 1", [sessionId]);
    return result.rowCount !== null && result.rowCount > 0;
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.pool.query("DELETE FROM transcript WHERE session = $1", [sessionId]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  private selectRows(text: string, values: unknown[]): Promise<StoredRow[]> {
    return selectRowsWith(this.pool, text, values);
  }
}

async function selectRowsWith(
  queryable: pg.Pool | pg.PoolClient,
  text: string,
  values: unknown[],
): Promise<StoredRow[]> {
  const result = await queryable.query<StoredRow>({ text, values, rowMode: "array" });
  return result.rows;
}

async function readHeadWith(queryable: pg.Pool | pg.PoolClient, sessionId: string): Promise<LogHead | null> {
  const result = await queryable.query<{ hash: string; position: number }>(
    "SELECT hash, position FROM transcript WHERE session = $1 ORDER BY position DESC LIMIT 1",
    [sessionId],
  );
  const row = result.rows[0];
  return row === undefined ? null : { hash: row.hash, position: row.position };
}
