/**
 * Signed state checkpoints as the SQL stores keep them (`transcript_checkpoints`, one row per
 * session: its latest). A row is trusted only through its signature, made by the daemon's head
 * key over (session, position, hash, SHA-256 of the state text): a database writer can delete a
 * row (restore then reads the whole log, as before checkpoints) but cannot make or change one.
 *
 * Boundary rule: signing and checking only; the backends' files run the statements. Without a
 * signer nothing is written and nothing is trusted (restore reads the whole log).
 */
import type { Awaitable } from "./awaitable.js";
import { isEntryHash } from "./entry-hash.js";
import { LogCorruptError } from "./errors.js";
import type { HeadSigner } from "./head-signer.js";
import { checkpointDigest, type StateCheckpoint } from "./state-checkpoint.js";

/** A checkpoint row as stored. */
export interface CheckpointRow {
  position: number;
  hash: string;
  state: string;
  signature: string;
  key_id: string;
}

/** A backend's checkpoint rows: written in the caller's transaction, read outside any. */
export interface CheckpointRecords<Tx> {
  /** Record `checkpoint` as the session's latest (an older position never replaces a newer one). */
  write(tx: Tx, sessionId: string, checkpoint: StateCheckpoint): Awaitable<void>;
  /** The session's latest checkpoint, its signature checked (LogCorruptError if it fails), or null. */
  read(sessionId: string): Promise<StateCheckpoint | null>;
  /** Forget the session's checkpoint (its log was pruned or deleted). */
  remove(tx: Tx, sessionId: string): Awaitable<void>;
}

/** The row to store for `checkpoint`, signed by `signer`. */
export function signedCheckpointRow(
  sessionId: string,
  checkpoint: StateCheckpoint,
  signer: HeadSigner,
): CheckpointRow {
  const { position, hash, state } = checkpoint;
  const signed = signer.signCheckpoint(sessionId, position, hash, checkpointDigest(state));
  return { position, hash, state, ...signed };
}

/** The checkpoint a stored row holds, once its signature verifies under a key `signer` trusts. */
export function checkedCheckpoint(
  sessionId: string,
  row: CheckpointRow,
  signer: HeadSigner,
): StateCheckpoint {
  const { position, hash, state } = row;
  if (!Number.isSafeInteger(position) || position < 0 || !isEntryHash(hash) || typeof state !== "string") {
    throw new LogCorruptError(sessionId, 0, "the state checkpoint does not have the expected shape");
  }
  const signed = { signature: String(row.signature), key_id: String(row.key_id) };
  const status = signer.checkCheckpoint(sessionId, position, hash, checkpointDigest(state), signed);
  if (status === "unknown_key") {
    throw new LogCorruptError(
      sessionId,
      position,
      "the state checkpoint is signed by a key not trusted here",
    );
  }
  if (status === "invalid") {
    throw new LogCorruptError(sessionId, position, "the state checkpoint's signature does not verify");
  }
  return { position, hash, state };
}
