/**
 * The SQLite store's state checkpoints (`transcript_checkpoints`, see checkpoint-records.ts).
 *
 * Boundary rule: statements only; the caller's transaction holds the writes.
 */
import type Database from "better-sqlite3";
import {
  type CheckpointRecords,
  type CheckpointRow,
  checkedCheckpoint,
  signedCheckpointRow,
} from "./checkpoint-records.js";
import type { HeadSigner } from "./head-signer.js";
import type { StateCheckpoint } from "./state-checkpoint.js";

export class SqliteCheckpointRecords implements CheckpointRecords<Database.Database> {
  readonly #signer: HeadSigner | undefined;
  readonly #select: Database.Statement<[string], CheckpointRow>;
  readonly #upsert: Database.Statement<[string, number, string, string, string, string]>;
  readonly #delete: Database.Statement<[string]>;

  /** The statements on `db` (whose schema exists); rows are signed and checked by `signer`. */
  constructor(db: Database.Database, signer: HeadSigner | undefined) {
    this.#signer = signer;
    this.#select = db.prepare(
      "SELECT position, hash, state, signature, key_id FROM transcript_checkpoints WHERE session = ?",
    );
    this.#upsert = db.prepare(
      `INSERT INTO transcript_checkpoints (session, position, hash, state, signature, key_id)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (session) DO UPDATE SET position = excluded.position, hash = excluded.hash,
         state = excluded.state, signature = excluded.signature, key_id = excluded.key_id
       WHERE excluded.position > transcript_checkpoints.position`,
    );
    this.#delete = db.prepare("DELETE FROM transcript_checkpoints WHERE session = ?");
  }

  write(_db: Database.Database, sessionId: string, checkpoint: StateCheckpoint): void {
    if (this.#signer === undefined) return;
    const row = signedCheckpointRow(sessionId, checkpoint, this.#signer);
    this.#upsert.run(sessionId, row.position, row.hash, row.state, row.signature, row.key_id);
  }

  async read(sessionId: string): Promise<StateCheckpoint | null> {
    if (this.#signer === undefined) return null;
    const row = this.#select.get(sessionId);
    return row === undefined ? null : checkedCheckpoint(sessionId, row, this.#signer);
  }

  remove(_db: Database.Database, sessionId: string): void {
    this.#delete.run(sessionId);
  }
}
