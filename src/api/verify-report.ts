/**
 * `GET /sessions/{id}/verify`: a session's whole chain re-hashed, checked against its recorded
 * head and that head's signature, with the signed head itself, so a user can keep it elsewhere
 * and later prove the log was not rewritten.
 *
 * Boundary rule: a plain type of the wire; the daemon builds it
 * (src/daemon/session/verify-report.ts).
 */

/** How a recorded head's signature stands. */
export type SignatureStatus = "valid" | "invalid" | "unknown_key" | "unsigned";

/** The report; a corrupt log is a report with `status: "corrupt"`, not an error answer. */
export interface VerifyReport {
  session_id: string;
  status: "verified" | "corrupt";
  /** Entries read and verified (null when the log could not be read to the end). */
  entries: number | null;
  head: null | {
    position: number;
    hash: string;
    signature: string | null;
    key_id: string | null;
    signature_status: SignatureStatus;
  };
  /** Where and why verification failed, or null. */
  problem: null | { position: number; reason: string };
  /** The daemon's own signing key: its id and the public key (SPKI PEM) that checks its signatures. */
  signing_key: { key_id: string; public_key: string };
}
