/**
 * The SQLite store's recorded heads (`transcript_heads`, see head-record.ts): one row per
 * session naming its last entry and, with a signer, the signature over it.
 *
 * Boundary rule: statements only; when to read, write or check a head is the store's.
 */
import type Database from "better-sqlite3";
import type { HeadRecord } from "./head-record.js";
import type { HeadSignature } from "./head-signer.js";
import type { LogHead } from "./store.js";

/** A recorded head's row as stored. */
interface HeadRow {
  position: number;
  hash: string;
  signature: string | null;
  key_id: string | null;
}

/** A session's recorded head and its last entry's row, as one statement reads them (nulls: none). */
interface HeadAndLastRow {
  head_position: number | null;
  head_hash: string | null;
  signature: string | null;
  key_id: string | null;
  position: number | null;
  hash: string | null;
}

/** What the recorded head names, and the log's last row (to check one against the other). */
export interface HeadAndLast {
  record: HeadRecord | null;
  last: LogHead | undefined;
}

export class SqliteHeadRecords {
  readonly #select: Database.Statement<[string], HeadRow>;
  readonly #selectWithLast: Database.Statement<[string, string], HeadAndLastRow>;
  readonly #upsert: Database.Statement<[string, number, string, string | null, string | null]>;
  readonly #delete: Database.Statement<[string]>;
  readonly #unsigned: Database.Statement<[], string>;
  readonly #sign: Database.Statement<[string, string, string, number, string]>;

  /** The statements on `db` (whose schema exists). */
  constructor(db: Database.Database) {
    this.#select = db.prepare(
      "SELECT position, hash, signature, key_id FROM transcript_heads WHERE session = ?",
    );
    // One statement for both reads of every append (the compare-and-append fence): the head
    // record and the last row by the (session, position) index, walked backwards.
    this.#selectWithLast = db.prepare(
      `SELECT h.position AS head_position, h.hash AS head_hash, h.signature AS signature, h.key_id AS key_id,
         t.position AS position, t.hash AS hash
       FROM (SELECT ? AS session) AS k
       LEFT JOIN transcript_heads AS h ON h.session = k.session
       LEFT JOIN (SELECT position, hash FROM transcript WHERE session = ? ORDER BY position DESC LIMIT 1) AS t`,
    );
    this.#upsert = db.prepare(
      `INSERT INTO transcript_heads (session, position, hash, signature, key_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (session) DO UPDATE SET position = excluded.position, hash = excluded.hash,
         signature = excluded.signature, key_id = excluded.key_id`,
    );
    this.#delete = db.prepare("DELETE FROM transcript_heads WHERE session = ?");
    this.#unsigned = db
      .prepare<[], string>("SELECT session FROM transcript_heads WHERE signature IS NULL OR key_id IS NULL")
      .pluck(true);
    this.#sign = db.prepare(
      "UPDATE transcript_heads SET signature = ?, key_id = ? WHERE session = ? AND position = ? AND hash = ? AND (signature IS NULL OR key_id IS NULL)",
    );
  }

  /** The session's recorded head as stored, or null. */
  read(sessionId: string): HeadRecord | null {
    const row = this.#select.get(sessionId);
    return row === undefined ? null : recordOf(row);
  }

  /** The session's recorded head and the position and hash of its last entry, in one read. */
  readWithLast(sessionId: string): HeadAndLast {
    const row = this.#selectWithLast.get(sessionId, sessionId)!;
    return {
      record:
        row.head_position === null || row.head_hash === null
          ? null
          : recordOf({
              position: row.head_position,
              hash: row.head_hash,
              signature: row.signature,
              key_id: row.key_id,
            }),
      last:
        row.position === null || row.hash === null ? undefined : { position: row.position, hash: row.hash },
    };
  }

  /** Record `head` (with its signature, or none) as the session's. */
  write(sessionId: string, head: LogHead, signed: HeadSignature | null): void {
    this.#upsert.run(sessionId, head.position, head.hash, signed?.signature ?? null, signed?.key_id ?? null);
  }

  remove(sessionId: string): void {
    this.#delete.run(sessionId);
  }

  /** Sessions whose recorded head carries no signature. */
  unsigned(): string[] {
    return this.#unsigned.all();
  }

  /** Sign the session's head if it is still `head` and still unsigned; whether it was. */
  sign(sessionId: string, head: LogHead, signed: HeadSignature): boolean {
    return this.#sign.run(signed.signature, signed.key_id, sessionId, head.position, head.hash).changes === 1;
  }
}

function recordOf(row: HeadRow): HeadRecord {
  return {
    position: row.position,
    hash: row.hash,
    signed:
      row.signature === null || row.key_id === null ? null : { signature: row.signature, key_id: row.key_id },
  };
}
