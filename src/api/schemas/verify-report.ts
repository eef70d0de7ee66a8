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
import { named } from "./named-schema.js";
import { closed, NullableString } from "./parts.js";

const SignatureStatusSchema = Type.Union([
  Type.Literal("valid"),
  Type.Literal("invalid"),
  Type.Literal("unknown_key"),
  Type.Literal("unsigned"),
]);

/** How a recorded head's signature stands. */
export type SignatureStatus = Static<typeof SignatureStatusSchema>;

/** The report; a corrupt log is a report with `status: "corrupt"`, not an error answer. */
export const VerifyReportSchema = named(
  "VerifyReport",
  Type.Object(
    {
      session_id: Type.String(),
      status: Type.Union([Type.Literal("verified"), Type.Literal("corrupt")]),
      /** Entries read and verified (null when the log could not be read to the end). */
      entries: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
      head: Type.Union([
        Type.Null(),
        Type.Object(
          {
            position: Type.Integer({ minimum: 0 }),
            hash: Type.String(),
            signature: NullableString,
            key_id: NullableString,
            signature_status: SignatureStatusSchema,
          },
          closed,
        ),
      ]),
      /** Where and why verification failed, or null. */
      problem: Type.Union([
        Type.Null(),
        Type.Object({ position: Type.Integer({ minimum: 0 }), reason: Type.String() }, closed),
      ]),
      /** The daemon's own signing key: its id and the public key (SPKI PEM) that checks its signatures. */
      signing_key: Type.Object({ key_id: Type.String(), public_key: Type.String() }, closed),
    },
    closed,
  ),
);
export type VerifyReport = Static<typeof VerifyReportSchema>;
