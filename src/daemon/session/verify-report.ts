/**
 * Building a session's verification report (`GET /sessions/{id}/verify`, `skein verify`; its
 * wire shape is src/api/verify-report.ts): the whole chain re-hashed, checked against its
 * recorded head and that head's signature, with the signed head itself.
 *
 * Boundary rule: a pure function of what the store reads; corruption is the report's answer,
 * not an error.
 */
import type { VerifyReport } from "../../api/verify-report.js";
import type { PositionedEntry } from "../../log/entries.js";
import { LogCorruptError } from "../../log/errors.js";
import type { HeadRecord } from "../../log/head-record.js";
import type { HeadSigner } from "../../log/head-signer.js";

/** Verify one session: read its whole log (which checks chain, head and signature) and describe the head. */
export async function verifySession(
  sessionId: string,
  readLog: (sessionId: string) => Promise<PositionedEntry[]>,
  readHeadRecord: (sessionId: string) => Promise<HeadRecord | null>,
  signer: HeadSigner,
): Promise<VerifyReport> {
  const record = await readHeadRecord(sessionId);
  let entries: number | null = null;
  let problem: VerifyReport["problem"] = null;
  try {
    entries = (await readLog(sessionId)).length;
  } catch (error) {
    if (!(error instanceof LogCorruptError)) throw error;
    problem = { position: error.position, reason: error.reason };
  }
  return {
    session_id: sessionId,
    status: problem === null ? "verified" : "corrupt",
    entries,
    head:
      record === null
        ? null
        : {
            position: record.position,
            hash: record.hash,
            signature: record.signed?.signature ?? null,
            key_id: record.signed?.key_id ?? null,
            signature_status:
              record.signed === null
                ? "unsigned"
                : signer.check(sessionId, record.position, record.hash, record.signed),
          },
    problem,
    signing_key: { key_id: signer.keyId, public_key: signer.publicKeyPem() },
  };
}
