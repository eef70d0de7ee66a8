/**
 * The recorded head: what a store keeps beside a session's entries (the position and hash of
 * the last entry, and optionally their signature), written in the same transaction as every
 * append. Entries alone cannot show that their tail was cut off: the chain of the entries that
 * remain still verifies. Checked against the recorded head, a log that ends early does not.
 *
 * Boundary rule: pure checks; each store reads its own record and calls `checkHeadRecord`.
 */

import { unreachable } from "../model/unreachable.js";
import { isEntryHash } from "./entry-hash.js";
import { LogCorruptError } from "./errors.js";
import type { HeadSignature, HeadSigner, SignatureCheck } from "./head-signer.js";

/** A session's recorded head, as a store keeps it. */
export interface HeadRecord {
  position: number;
  hash: string;
  /** Null when the head was written by a store without a signer. */
  signed: HeadSignature | null;
}

/** How a store's recorded head may relate to its entries. */
export interface HeadCheckOptions {
  /**
   * The record may lag behind the entries (by any number of appends): true for a store that
   * writes the record after the entries, not atomically with them (the JSONL files).
   */
  mayLag?: boolean;
  /**
   * Checks signatures: with a signer, the recorded head must carry a signature that verifies
   * under a key the signer trusts; an unsigned head, or one signed by an unknown key, is
   * corruption (a database writer without the key could otherwise rewrite the log, re-hash it,
   * and clear or fake the signature). Without a signer nothing is checked.
   */
  signer?: HeadSigner | undefined;
  /**
   * Accept an unsigned head although a signer is given: only for signing, once, the heads a
   * store wrote before it had a signer.
   */
  allowUnsigned?: boolean;
}

/** What a recorded head's signature is, as checked by a signer: `unsigned` when it has none. */
export type HeadSignatureStatus = SignatureCheck | "unsigned";

/** The status of `record`'s signature under `signer`'s trusted keys. */
export function headSignatureStatus(
  sessionId: string,
  record: HeadRecord,
  signer: HeadSigner,
): HeadSignatureStatus {
  return record.signed === null
    ? "unsigned"
    : signer.check(sessionId, record.position, record.hash, record.signed);
}

/**
 * Check the entries a store read against its recorded head. `end` is the position of the log's
 * last entry (-1 when it has none); `hashAt` gives the hash of the entry at the recorded
 * position (null: the caller did not read it, so it is not checked). Throws `LogCorruptError`
 * naming the first position that does not hold.
 */
export function checkHeadRecord(
  sessionId: string,
  end: number,
  record: HeadRecord | null,
  hashAt: (position: number) => string | null | undefined,
  options: HeadCheckOptions = {},
): void {
  if (record === null) {
    if (end < 0 || options.mayLag === true) return;
    throw new LogCorruptError(sessionId, 0, "the log has entries but no recorded head");
  }
  if (end < record.position) {
    throw new LogCorruptError(
      sessionId,
      end + 1,
      `the log ends at position ${end} but its recorded head is at ${record.position}: entries were removed`,
    );
  }
  if (end > record.position && options.mayLag !== true) {
    throw new LogCorruptError(
      sessionId,
      record.position + 1,
      `the log goes on past its recorded head at position ${record.position}: entries were added behind the store`,
    );
  }
  const hash = hashAt(record.position);
  if (hash !== null && hash !== record.hash) {
    throw new LogCorruptError(sessionId, record.position, "the entry is not the one the recorded head names");
  }
  if (options.signer === undefined) return;
  const status = headSignatureStatus(sessionId, record, options.signer);
  switch (status) {
    case "valid":
      return;
    case "unsigned":
      if (options.allowUnsigned === true) return;
      throw new LogCorruptError(
        sessionId,
        record.position,
        "the recorded head is not signed, but every head here must be",
      );
    case "unknown_key":
      throw new LogCorruptError(
        sessionId,
        record.position,
        `the recorded head is signed by key ${keyIdText(record.signed?.key_id ?? "")}, which is not trusted here`,
      );
    case "invalid":
      throw new LogCorruptError(sessionId, record.position, "the recorded head's signature does not verify");
    default:
      unreachable(status, "unknown signature status");
  }
}

/** A key id as stored (whatever a database writer put there), safe to put in a message. */
function keyIdText(keyId: string): string {
  return /^[0-9a-f]{16}$/.test(keyId) ? keyId : JSON.stringify(keyId.slice(0, 64));
}

/** A head record file's content, checked field by field (a bad one is corruption, not a crash). */
export function parseHeadRecord(sessionId: string, text: string): HeadRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new LogCorruptError(sessionId, 0, "the recorded head is not valid JSON");
  }
  const record = value as Partial<Record<keyof HeadRecord, unknown>>;
  const signed = record.signed as { signature?: unknown; key_id?: unknown } | null | undefined;
  if (
    typeof value !== "object" ||
    value === null ||
    !Number.isSafeInteger(record.position) ||
    (record.position as number) < 0 ||
    typeof record.hash !== "string" ||
    !isEntryHash(record.hash) ||
    (signed !== null && (typeof signed?.signature !== "string" || typeof signed.key_id !== "string"))
  ) {
    throw new LogCorruptError(sessionId, 0, "the recorded head does not have the expected shape");
  }
  return {
    position: record.position as number,
    hash: record.hash,
    signed:
      signed === null ? null : { signature: signed.signature as string, key_id: signed.key_id as string },
  };
}

/** The position and hash of a log's last entry (a store's `LogHead`). */
interface LastRow {
  hash: string;
  position: number;
}

/**
 * The head of a store that keeps the last entry's row beside its recorded head (SQLite,
 * PostgreSQL): the last row checked against the record, null for a session with neither.
 */
export function checkedLastRow(
  sessionId: string,
  row: LastRow | undefined,
  record: HeadRecord | null,
  signer: HeadSigner | undefined,
): LastRow | null {
  if (row === undefined && record === null) return null;
  const last = row === undefined ? null : { hash: row.hash, position: row.position };
  checkHeadRecord(
    sessionId,
    last?.position ?? -1,
    record,
    (at) => (at === last?.position ? last.hash : undefined),
    {
      signer,
    },
  );
  return last;
}
