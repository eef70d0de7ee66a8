/**
 * The PostgreSQL store: every session's log in one `transcript` table, one row per entry, and
 * its recorded head in `transcript_heads`, so several processes (later: several daemons) can
 * share one database.
 *
 * Boundary rule: PostgreSQL is the arbiter of a compare-and-append. An append locks the
 * session's recorded head (`FOR UPDATE`), compares it with the first entry's prev_hash, inserts
 * and moves the head, in one transaction; two writers that both start a new session collide on
 * the primary key of `transcript_heads` (or UNIQUE(session, position)) and the loser gets
 * `AppendConflictError` with the head it lost to. Durability is PostgreSQL's (commit is durable
 * with the default synchronous_commit). Reads verify exactly like the SQLite store.
 */
import pg from "pg";
import type { HashedEntry, PositionedEntry } from "./entries.js";
import { isEntryHash } from "./entry-hash.js";
import { AppendConflictError, LogCorruptError, SessionNotFoundError } from "./errors.js";
import { checkHeadRecord, type HeadRecord } from "./head-record.js";
import type { HeadSigner } from "./head-signer.js";
import type { PgCommitQueue } from "./pg-commit-queue.js";
import { keepConnectionErrors } from "./pg-connection-errors.js";
import { type PreparedEntry, prepareAppend } from "./prepared-append.js";
import type { AlongsideWrites, AppendOptions, LogHead, Store } from "./store.js";
import { backfillRecordedHeads, transcriptTables } from "./transcript-schema.js";
import { type StoredRow, verifyRows } from "./verify-rows.js";

type Queryable = pg.Pool | pg.PoolClient;

/**
 * Create the `transcript` table and `transcript_heads` if they do not exist (idempotent). A
 * database from before recorded heads gets one per session, from its last entry.
 */
export async function createPgTranscriptSchema(queryable: Queryable): Promise<void> {
  const existing = await queryable.query("SELECT to_regclass('transcript_heads') IS NOT NULL AS present");
  const hadHeads = (existing.rows[0] as { present: boolean }).present;
  for (const statement of transcriptTables("postgres")) await queryable.query(statement);
  if (!hadHeads) await queryable.query(backfillRecordedHeads);
}

const UNIQUE_VIOLATION = "23505";
const SELECT_COLUMNS = "SELECT position, hash, prev_hash, kind, entry FROM transcript";

export interface PgStoreOptions {
  /**
   * The group commit of the pool, when others write through it too (the daemon's own rows):
   * appends then share transactions with them. Default: each append its own transaction.
   */
  commitQueue?: PgCommitQueue;
  /** End the pool on close(). */
  ownsPool?: boolean;
  /** Signs every recorded head and checks signatures on read (see head-signer.ts). */
  signer?: HeadSigner;
}

export class PgStore implements Store<pg.PoolClient> {
  private closed = false;
  private readonly ownsPool: boolean;
  private readonly signer: HeadSigner | undefined;
  private readonly commitQueue: PgCommitQueue | undefined;

  /** A store on `pool` (its connections must see the tables, e.g. through their search_path). */
  constructor(
    readonly pool: pg.Pool,
    options: PgStoreOptions = {},
  ) {
    this.ownsPool = options.ownsPool ?? false;
    this.signer = options.signer;
    this.commitQueue = options.commitQueue;
  }

  /** Connect with `config` (a connection string or pool settings) and make sure the tables exist. */
  static async open(
    config: string | pg.PoolConfig,
    options: Omit<PgStoreOptions, "ownsPool"> = {},
  ): Promise<PgStore> {
    const pool = new pg.Pool(typeof config === "string" ? { connectionString: config } : config);
    keepConnectionErrors(pool);
    try {
      await createPgTranscriptSchema(pool);
    } catch (error) {
      await pool.end();
      throw error;
    }
    return new PgStore(pool, { ...options, ownsPool: true });
  }

  /**
   * `alongside` runs in the append's transaction with its client (before COMMIT). With a
   * commit queue the append shares its transaction with the other writes queued meanwhile.
   */
  async append(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside?: AlongsideWrites<pg.PoolClient>,
    options: AppendOptions = {},
  ): Promise<LogHead> {
    // PostgreSQL's COMMIT returns once the commit is durable: written and durable are one moment.
    const head = await this.commitAppend(sessionId, entries, alongside);
    options.onWritten?.(head);
    return head;
  }

  private async commitAppend(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside: AlongsideWrites<pg.PoolClient> | undefined,
  ): Promise<LogHead> {
    const prepared = prepareAppend(sessionId, entries);
    const queue = this.commitQueue;
    if (queue !== undefined) {
      return queue.run(sessionId, async (client) => {
        const head = await this.appendPrepared(client, sessionId, prepared);
        if (alongside !== undefined) await alongside(client, head);
        return head;
      });
    }
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const head = await this.appendPrepared(client, sessionId, prepared);
      if (alongside !== undefined) await alongside(client, head);
      await client.query("COMMIT");
      return head;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Compare-and-append `entries` on `client`, inside the transaction the caller holds (its
   * commit makes them durable with the caller's other writes). Throws `AppendConflictError` on
   * a stale head; the caller then rolls its transaction (or savepoint) back.
   */
  appendInTransaction(
    client: pg.PoolClient,
    sessionId: string,
    entries: readonly HashedEntry[],
  ): Promise<LogHead> {
    return this.appendPrepared(client, sessionId, prepareAppend(sessionId, entries));
  }

  private async appendPrepared(
    client: pg.PoolClient,
    sessionId: string,
    prepared: readonly PreparedEntry[],
  ): Promise<LogHead> {
    const expected = prepared[0]!.hashed.prev_hash;
    const head = await this.checkedHead(client, sessionId, true);
    if ((head?.hash ?? null) !== expected) {
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
    const last = {
      hash: prepared[prepared.length - 1]!.hashed.hash,
      position: first + prepared.length - 1,
    };
    const signed = this.signer?.sign(sessionId, last.position, last.hash) ?? null;
    try {
      await client.query(
        `INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES ${rows.join(", ")}`,
        values,
      );
      await client.query(
        head === null
          ? "INSERT INTO transcript_heads (session, position, hash, signature, key_id) VALUES ($1, $2, $3, $4, $5)"
          : "UPDATE transcript_heads SET position = $2, hash = $3, signature = $4, key_id = $5 WHERE session = $1",
        [sessionId, last.position, last.hash, signed?.signature ?? null, signed?.key_id ?? null],
      );
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) {
        // Another writer created the session after our read of the head: it won.
        const actual = await this.readHead(sessionId);
        throw new AppendConflictError(sessionId, expected, actual?.hash ?? null);
      }
      throw error;
    }
    return last;
  }

  async readAll(sessionId: string): Promise<PositionedEntry[]> {
    return this.inSnapshot(async (client) => {
      const rows = await selectRowsWith(client, `${SELECT_COLUMNS} WHERE session = $1 ORDER BY position`, [
        sessionId,
      ]);
      const record = await readRecordWith(client, sessionId);
      if (rows.length === 0) {
        if (record !== null) {
          throw new LogCorruptError(
            sessionId,
            0,
            "every entry was removed but the log's recorded head remains",
          );
        }
        throw new SessionNotFoundError(sessionId);
      }
      const entries = verifyRows(sessionId, rows, 0, null);
      checkHeadRecord(sessionId, entries.length - 1, record, (at) => entries[at]?.hash, {
        signer: this.signer,
      });
      return entries;
    });
  }

  /**
   * Sign every recorded head that has no signature yet (heads written before this store had a
   * signer), each only after its whole log verified against it; a log that does not verify is
   * left as it is (it reads as corrupt). Returns the sessions whose heads were signed. The
   * update names the head it verified, so a head another writer moved meanwhile (and signed) is
   * left alone.
   */
  async signUnsignedHeads(): Promise<string[]> {
    const signer = this.signer;
    if (signer === undefined) throw new Error("signUnsignedHeads needs a store with a signer");
    const found = await this.pool.query<{ session: string }>(
      "SELECT session FROM transcript_heads WHERE signature IS NULL OR key_id IS NULL",
    );
    const signed: string[] = [];
    for (const { session: sessionId } of found.rows) {
      let last: PositionedEntry;
      try {
        const verified = await this.inSnapshot(async (client) => {
          const rows = await selectRowsWith(
            client,
            `${SELECT_COLUMNS} WHERE session = $1 ORDER BY position`,
            [sessionId],
          );
          const entries = verifyRows(sessionId, rows, 0, null);
          if (entries.length === 0) return null;
          const end = entries[entries.length - 1]!;
          checkHeadRecord(
            sessionId,
            end.position,
            await readRecordWith(client, sessionId),
            (at) => entries[at]?.hash,
            {
              signer,
              allowUnsigned: true,
            },
          );
          return end;
        });
        if (verified === null) continue;
        last = verified;
      } catch (error) {
        if (error instanceof LogCorruptError) continue;
        throw error;
      }
      const signature = signer.sign(sessionId, last.position, last.hash);
      const updated = await this.pool.query(
        "UPDATE transcript_heads SET signature = $1, key_id = $2 WHERE session = $3 AND position = $4 AND hash = $5 AND (signature IS NULL OR key_id IS NULL)",
        [signature.signature, signature.key_id, sessionId, last.position, last.hash],
      );
      if (updated.rowCount === 1) signed.push(sessionId);
    }
    return signed;
  }

  async readHead(sessionId: string): Promise<LogHead | null> {
    return this.inSnapshot((client) => this.checkedHead(client, sessionId, false));
  }

  async readHeadRecord(sessionId: string): Promise<HeadRecord | null> {
    return readRecordWith(this.pool, sessionId);
  }

  async readRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    if (!Number.isInteger(from) || from < 0 || !(limit >= 0)) {
      throw new RangeError(`invalid range from=${from} limit=${limit}`);
    }
    const end = Math.min(from + limit, 2 ** 31 - 1);
    return this.inSnapshot(async (client) => {
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
          if ((await this.checkedHead(client, sessionId, false)) === null) {
            throw new SessionNotFoundError(sessionId);
          }
          return [];
        }
        if (!isEntryHash(hash))
          throw new LogCorruptError(sessionId, from - 1, "hash is not 64 lowercase hex digits");
        prevHash = hash;
      } else if (rows.length === 0 && (await this.checkedHead(client, sessionId, false)) === null) {
        throw new SessionNotFoundError(sessionId);
      }
      const entries = verifyRows(sessionId, rows, from, prevHash);
      // A short range must really be the end of the log: not a gap before later entries, nor a
      // log cut back before its recorded head.
      if (entries.length < end - from) {
        const head = await this.checkedHead(client, sessionId, false);
        const missing = from + entries.length;
        if (head !== null && head.position >= missing) {
          throw new LogCorruptError(sessionId, missing, "the entry is missing");
        }
      }
      return entries;
    });
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

  /** Delete the session's entries and recorded head on `client`, in the caller's transaction. */
  async deleteSessionInTransaction(client: pg.PoolClient, sessionId: string): Promise<void> {
    await client.query("DELETE FROM transcript WHERE session = $1", [sessionId]);
    await client.query("DELETE FROM transcript_heads WHERE session = $1", [sessionId]);
  }

  async deleteSession(sessionId: string): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      await client.query("DELETE FROM transcript WHERE session = $1", [sessionId]);
      await client.query("DELETE FROM transcript_heads WHERE session = $1", [sessionId]);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPool) await this.pool.end();
  }

  /** Run `work` in one read-only snapshot, so the entries, their predecessor and the head agree. */
  private async inSnapshot<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      return await work(client);
    } finally {
      await client.query("COMMIT").catch(() => undefined);
      client.release();
    }
  }

  /**
   * The last entry, checked against the recorded head (two indexed lookups, no chain walk);
   * `lock` takes the head's row lock for an append.
   */
  private async checkedHead(
    client: pg.PoolClient,
    sessionId: string,
    lock: boolean,
  ): Promise<LogHead | null> {
    const record = await readRecordWith(client, sessionId, lock);
    const result = await client.query<{ hash: string; position: number }>(
      "SELECT hash, position FROM transcript WHERE session = $1 ORDER BY position DESC LIMIT 1",
      [sessionId],
    );
    const row = result.rows[0];
    if (row === undefined && record === null) return null;
    const last = row === undefined ? null : { hash: row.hash, position: row.position };
    checkHeadRecord(
      sessionId,
      last?.position ?? -1,
      record,
      (at) => (at === last?.position ? last.hash : undefined),
      {
        signer: this.signer,
      },
    );
    return last;
  }
}

async function selectRowsWith(queryable: Queryable, text: string, values: unknown[]): Promise<StoredRow[]> {
  const result = await queryable.query<StoredRow>({ text, values, rowMode: "array" });
  return result.rows;
}

async function readRecordWith(
  queryable: Queryable,
  sessionId: string,
  lock = false,
): Promise<HeadRecord | null> {
  const result = await queryable.query<{
    position: number;
    hash: string;
    signature: string | null;
    key_id: string | null;
  }>(
    `SELECT position, hash, signature, key_id FROM transcript_heads WHERE session = $1${lock ? " FOR UPDATE" : ""}`,
    [sessionId],
  );
  const row = result.rows[0];
  if (row === undefined) return null;
  return {
    position: row.position,
    hash: row.hash,
    signed:
      row.signature === null || row.key_id === null ? null : { signature: row.signature, key_id: row.key_id },
  };
}
