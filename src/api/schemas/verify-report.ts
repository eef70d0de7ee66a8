/**
 * `GET /sessions/{id}/verify` on the wire, as a TypeBox schema and the types derived from it: a
 * session's whole chain re-hashed, checked against its recorded head and that head's
 * signature, with the signed head itself, so a user can keep it elsewhere and later prove the
 * log was not rewritten.
 *
 * Boundary rule: the schema is the definition; each type is `Static` of it. The daemon builds
 * it.
 */
import { type Static, Type } from "typebox";
import { closedObject, literalUnion, NullableString, namedObject } from "./parts.js";

const SignatureStatusSchema = literalUnion("valid", "invalid", "unknown_key", "unsigned");

/** How a recorded head's signature stands. */
export type SignatureStatus = Static<typeof SignatureStatusSchema>;

/** The report; a corrupt log is a report with `status: "corrupt"`, not an error answer. */
export const VerifyReportSchema = namedObject("VerifyReport", {
  session_id: Type.String(),
  status: literalUnion("verified", "corrupt"),
  /** Entries read and verified (null when the log could not be read to the end). */
  entries: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  head: Type.Union([
    Type.Null(),
    closedObject({
      position: Type.Integer({ minimum: 0 }),
      hash: Type.String(),
      signature: NullableString,
      key_id: NullableString,
      signature_status: SignatureStatusSchema,
    }),
  ]),
  /** Where and why verification failed, or null. */
  problem: Type.Union([
    Type.Null(),
    closedObject({ position: Type.Integer({ minimum: 0 }), reason: Type.String() }),
  ]),
  /** The daemon's own signing key: its id and the public key (SPKI PEM) that checks its signatures. */
  signing_key: closedObject({ key_id: Type.String(), public_key: Type.String() }),
});
export type VerifyReport = Static<typeof VerifyReportSchema>;
