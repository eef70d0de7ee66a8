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
 * with the default synchronous_commit). Every write goes through a group commit
 * (pg-commit-queue.ts: the store's own, or one it shares with the daemon's rows, which then
 * append inside their own writes with `appendInTransaction`). Reads verify exactly like the SQLite
 * store.
 */
import type pg from "pg";
import type { GroupCommitStats } from "./commit-queue.js";
import type { HashedEntry, PositionedEntry } from "./entries.js";
import { isEntryHash } from "./entry-hash.js";
import { AppendConflictError, LogCorruptError, SessionNotFoundError, StoreClosedError } from "./errors.js";
import { checkedLastRow, checkHeadRecord, type HeadRecord } from "./head-record.js";
import type { HeadSigner } from "./head-signer.js";
import { PgCommitQueue } from "./pg-commit-queue.js";
import { keepConnectionErrors } from "./pg-connection-errors.js";
import { pgDriver } from "./pg-driver.js";
import { readPgHeadRecord, signPgHead, unsignedPgHeads } from "./pg-head-records.js";
import { cutHashAt, latestPgCut } from "./pg-prune-cut.js";
import { createPgTranscriptSchema } from "./pg-transcript-schema.js";
import { type PreparedEntry, prepareAppend } from "./prepared-append.js";
import type { AlongsideWrites, AppendOptions, LogHead, TransactionalStore } from "./store.js";
import { type StoredRow, verifyRows, verifyStoredLog } from "./verify-rows.js";

type Queryable = pg.Pool | pg.PoolClient;

const UNIQUE_VIOLATION = "23505";
const SELECT_COLUMNS = "SELECT position, hash, prev_hash, kind, entry FROM transcript";

export interface PgStoreOptions {
  /**
   * The group commit of the pool, when others write through it too (the daemon's own rows):
   * appends then share transactions with them. Default: the store's own.
   */
  commitQueue?: PgCommitQueue;
  /** End the pool on close(). */
  ownsPool?: boolean;
  /** Signs every recorded head and checks signatures on read (see head-signer.ts). */
  signer?: HeadSigner;
}

export class PgStore implements TransactionalStore<pg.PoolClient> {
  private closed = false;
  private readonly ownsPool: boolean;
  private readonly signer: HeadSigner | undefined;
  readonly commitQueue: PgCommitQueue;
  private readonly ownsQueue: boolean;

  /** A store on `pool` (its connections must see the tables, e.g. through their search_path). */
  constructor(
    readonly pool: pg.Pool,
    options: PgStoreOptions = {},
  ) {
    this.ownsPool = options.ownsPool ?? false;
    this.signer = options.signer;
    this.ownsQueue = options.commitQueue === undefined;
    this.commitQueue = options.commitQueue ?? new PgCommitQueue(pool);
  }

  /** Connect with `config` (a connection string or pool settings) and make sure the tables exist. */
  static async open(
    config: string | pg.PoolConfig,
    options: Omit<PgStoreOptions, "ownsPool"> = {},
  ): Promise<PgStore> {
    const { Pool } = await pgDriver();
    const pool = new Pool(typeof config === "string" ? { connectionString: config } : config);
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
   * `alongside` runs in the append's transaction with its client (before COMMIT), which it
   * shares with the other writes queued meanwhile. PostgreSQL's COMMIT returns once the commit is
   * durable: `onWritten` is told at that moment.
   */
  async append(
    sessionId: string,
    entries: readonly HashedEntry[],
    alongside?: AlongsideWrites<pg.PoolClient>,
    options: AppendOptions = {},
  ): Promise<LogHead> {
    if (this.closed) throw new StoreClosedError(sessionId);
    const prepared = prepareAppend(sessionId, entries);
    return this.commitQueue.run(
      sessionId,
      async (client) => {
        const head = await this.appendPrepared(client, sessionId, prepared);
        if (alongside !== undefined) await alongside(client, head);
        return head;
      },
      options.onWritten,
    );
  }

  groupCommitStats(): GroupCommitStats {
    return this.commitQueue.stats();
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

  /** `appendInTransaction`: it takes no savepoint of its own either. */
  appendInWrite(client: pg.PoolClient, sessionId: string, entries: readonly HashedEntry[]): Promise<LogHead> {
    return this.appendInTransaction(client, sessionId, entries);
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
      const record = await readPgHeadRecord(client, sessionId);
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
      const entries = verifyStoredLog(sessionId, rows);
      const first = entries[0]!.position;
      checkHeadRecord(
        sessionId,
        entries[entries.length - 1]!.position,
        record,
        (at) => entries[at - first]?.hash,
        {
          signer: this.signer,
        },
      );
      return entries;
    });
  }

  /** Each head verified in its own snapshot, then signed only if it is still the one verified. */
  async signUnsignedHeads(): Promise<string[]> {
    const signer = this.signer;
    if (signer === undefined) throw new Error("signUnsignedHeads needs a store with a signer");
    const signed: string[] = [];
    for (const sessionId of await unsignedPgHeads(this.pool)) {
      let last: PositionedEntry;
      try {
        const verified = await this.inSnapshot(async (client) => {
          const rows = await selectRowsWith(
            client,
            `${SELECT_COLUMNS} WHERE session = $1 ORDER BY position`,
            [sessionId],
          );
          const entries = verifyStoredLog(sessionId, rows);
          if (entries.length === 0) return null;
          const end = entries[entries.length - 1]!;
          checkHeadRecord(
            sessionId,
            end.position,
            await readPgHeadRecord(client, sessionId),
            (at) => entries[at - entries[0]!.position]?.hash,
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
      if (await signPgHead(this.pool, sessionId, last, signer.sign(sessionId, last.position, last.hash)))
        signed.push(sessionId);
    }
    return signed;
  }

  async readHead(sessionId: string): Promise<LogHead | null> {
    return this.inSnapshot((client) => this.checkedHead(client, sessionId, false));
  }

  async readHeadRecord(sessionId: string): Promise<HeadRecord | null> {
    return readPgHeadRecord(this.pool, sessionId);
  }

  async readRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    if (!Number.isInteger(from) || from < 0 || !(limit >= 0)) {
      throw new RangeError(`invalid range from=${from} limit=${limit}`);
    }
    const end = Math.min(from + limit, 2 ** 31 - 1);
    return this.inSnapshot(async (client) => {
      const select = (start: number) =>
        selectRowsWith(
          client,
          `${SELECT_COLUMNS} WHERE session = $1 AND position >= $2 AND position < $3 ORDER BY position`,
          [sessionId, start, end],
        );
      let start = from;
      let rows = await select(start);
      let prevHash: string | null = null;
      // A range reaching before a pruned log's cut starts at the cut, chained to the hash it names.
      const cut = rows[0]?.[0] === from ? null : await latestPgCut(client, sessionId);
      if (cut !== null && from < cut.upTo) {
        if (end <= cut.upTo) return [];
        start = cut.upTo;
        prevHash = cut.cutHash;
        rows = await select(start);
      } else if (from > 0) {
        const predecessor = await client.query<{ hash: string }>(
          "SELECT hash FROM transcript WHERE session = $1 AND position = $2",
          [sessionId, from - 1],
        );
        // A range starting exactly at a pruned log's cut chains to the hash the cut names.
        const hash = predecessor.rows[0]?.hash ?? (await cutHashAt(client, sessionId, from));
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
      const entries = verifyRows(sessionId, rows, start, prevHash);
      // A short range must really be the end of the log: not a gap before later entries, nor a
      // log cut back before its recorded head.
      if (entries.length < end - start) {
        const head = await this.checkedHead(client, sessionId, false);
        const missing = start + entries.length;
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
  /** Remove the session's entries before `upTo` in the caller's transaction (retention; see pruned-log.ts). */
  async pruneInTransaction(client: pg.PoolClient, sessionId: string, upTo: number): Promise<number> {
    const result = await client.query("DELETE FROM transcript WHERE session = $1 AND position < $2", [
      sessionId,
      upTo,
    ]);
    return result.rowCount ?? 0;
  }

  async deleteInTransaction(client: pg.PoolClient, sessionId: string): Promise<void> {
    await client.query("DELETE FROM transcript WHERE session = $1", [sessionId]);
    await client.query("DELETE FROM transcript_heads WHERE session = $1", [sessionId]);
    await client.query("DELETE FROM transcript_checkpoints WHERE session = $1", [sessionId]);
  }

  /** Group-committed, like an append. */
  deleteSession(sessionId: string): Promise<void> {
    if (this.closed) return Promise.reject(new StoreClosedError(sessionId));
    return this.commitQueue.run(sessionId, (client) => this.deleteInTransaction(client, sessionId));
  }

  /** Commit what is queued (when the queue is the store's own), then end the pool if this store opened it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsQueue) await this.commitQueue.close();
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
    const record = await readPgHeadRecord(client, sessionId, lock);
    const result = await client.query<{ hash: string; position: number }>(
      "SELECT hash, position FROM transcript WHERE session = $1 ORDER BY position DESC LIMIT 1",
      [sessionId],
    );
    const row = result.rows[0];
    return checkedLastRow(sessionId, row, record, this.signer);
  }
}

async function selectRowsWith(queryable: Queryable, text: string, values: unknown[]): Promise<StoredRow[]> {
  const result = await queryable.query<StoredRow>({ text, values, rowMode: "array" });
  return result.rows;
}
