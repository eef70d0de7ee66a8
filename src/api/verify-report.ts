/**
 * `GET /sessions/{id}/verify`: a session's whole chain re-hashed, checked against its recorded
 * head and that head's signature, with the signed head itself, so a user can keep it elsewhere
 * and later prove the log was not rewritten.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/verify-report.ts); the
 * daemon builds it.
 */
export type { SignatureStatus, VerifyReport } from "./schemas/verify-report.js";
