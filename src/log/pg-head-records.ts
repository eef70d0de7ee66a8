/**
 * The PostgreSQL store's recorded heads (`transcript_heads`, see head-record.ts): one row per
 * session naming its last entry and, with a signer, the signature over it.
 *
 * Boundary rule: statements only; when to read, lock, sign or check a head is the store's.
 */
import type pg from "pg";
import type { HeadRecord } from "./head-record.js";
import type { HeadSignature } from "./head-signer.js";
import type { LogHead } from "./store.js";

type Queryable = pg.Pool | pg.PoolClient;

/** The session's recorded head as stored, or null; `lock` takes its row lock (FOR UPDATE) for an append. */
export async function readPgHeadRecord(
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

/** Sessions whose recorded head carries no signature. */
export async function unsignedPgHeads(queryable: Queryable): Promise<string[]> {
  const found = await queryable.query<{ session: string }>(
    "SELECT session FROM transcript_heads WHERE signature IS NULL OR key_id IS NULL",
  );
  return found.rows.map((row) => row.session);
}

/**
 * Sign the session's head if it is still `head` and still unsigned (a head another writer moved
 * meanwhile, and signed, is left alone); whether it was.
 */
export async function signPgHead(
  queryable: Queryable,
  sessionId: string,
  head: LogHead,
  signed: HeadSignature,
): Promise<boolean> {
  const updated = await queryable.query(
    "UPDATE transcript_heads SET signature = $1, key_id = $2 WHERE session = $3 AND position = $4 AND hash = $5 AND (signature IS NULL OR key_id IS NULL)",
    [signed.signature, signed.key_id, sessionId, head.position, head.hash],
  );
  return updated.rowCount === 1;
}
