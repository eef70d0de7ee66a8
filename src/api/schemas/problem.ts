/**
 * Problem JSON (RFC 9457 shape) on the wire, as a TypeBox schema and the types derived from it:
 * the body of every 4xx/5xx answer, one alternative per problem code with the code's fixed
 * status, built from the catalogue in ../problem-codes.ts.
 *
 * Boundary rule: the schema is the definition; each type is derived from it.
 */
import { type Static, Type } from "typebox";
import { type ProblemCode, problemStatuses, problemTitles } from "../problem-codes.js";
import { named } from "./named-schema.js";
import { closedObject, Time } from "./parts.js";

const RejectedCreation = closedObject(
  { status: Type.Integer(), code: Type.String(), detail: Type.String(), rejected_at: Time },
  { description: "the answer a refused creation of this session id got" },
);

/** The shape every problem has, with its status and code left general (each alternative fixes them). */
const ProblemBodySchema = closedObject({
  type: Type.Literal("about:blank"),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String({ description: "a sentence for a person" }),
  code: Type.Unsafe<ProblemCode>(Type.String()),
});

/** The wire body of a problem (its status is always the code's, `problemStatuses`). */
export type ProblemBody = Static<typeof ProblemBodySchema>;

function alternative(code: ProblemCode) {
  return closedObject(
    {
      ...ProblemBodySchema.properties,
      status: Type.Literal(problemStatuses[code]),
      code: Type.Literal(code),
      ...(code === "resource_not_found" ? { rejected_creation: Type.Optional(RejectedCreation) } : {}),
    },
    { title: problemTitles[code] },
  );
}

/** Every problem answer (`application/problem+json`). */
export const ProblemSchema = named(
  "Problem",
  Type.Union((Object.keys(problemStatuses) as ProblemCode[]).map(alternative), {
    description:
      "RFC 9457 problem JSON; `code` is one of the daemon's problem codes, always with the same status",
  }),
);

/**
 * The 404 of `GET /sessions/{id}` for an id whose creation was refused: the problem plus the
 * refusal's own answer.
 */
export type RejectedCreationBody = ProblemBody & { rejected_creation: Static<typeof RejectedCreation> };
