/**
 * The PostgreSQL store's state checkpoints (`transcript_checkpoints`, see checkpoint-records.ts).
 *
 * Boundary rule: statements only; the caller's transaction (its client) holds the writes.
 */
import type pg from "pg";
import {
  type CheckpointRecords,
  type CheckpointRow,
  checkedCheckpoint,
  signedCheckpointRow,
} from "./checkpoint-records.js";
import type { HeadSigner } from "./head-signer.js";
import type { StateCheckpoint } from "./state-checkpoint.js";

export class PgCheckpointRecords implements CheckpointRecords<pg.PoolClient> {
  readonly #pool: pg.Pool;
  readonly #signer: HeadSigner | undefined;

  /** Checkpoints in `pool`'s database (whose schema exists), signed and checked by `signer`. */
  constructor(pool: pg.Pool, signer: HeadSigner | undefined) {
    this.#pool = pool;
    this.#signer = signer;
  }

  async write(client: pg.PoolClient, sessionId: string, checkpoint: StateCheckpoint): Promise<void> {
    if (this.#signer === undefined) return;
    const row = signedCheckpointRow(sessionId, checkpoint, this.#signer);
    await client.query(
      `INSERT INTO transcript_checkpoints (session, position, hash, state, signature, key_id)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (session) DO UPDATE SET position = excluded.position, hash = excluded.hash,
         state = excluded.state, signature = excluded.signature, key_id = excluded.key_id
       WHERE excluded.position > transcript_checkpoints.position`,
      [sessionId, row.position, row.hash, row.state, row.signature, row.key_id],
    );
  }

  async read(sessionId: string): Promise<StateCheckpoint | null> {
    if (this.#signer === undefined) return null;
    const found = await this.#pool.query<CheckpointRow>(
      "SELECT position, hash, state, signature, key_id FROM transcript_checkpoints WHERE session = $1",
      [sessionId],
    );
    const row = found.rows[0];
    return row === undefined
      ? null
      : checkedCheckpoint(sessionId, { ...row, position: Number(row.position) }, this.#signer);
  }

  async remove(client: pg.PoolClient, sessionId: string): Promise<void> {
    await client.query("DELETE FROM transcript_checkpoints WHERE session = $1", [sessionId]);
  }
}
