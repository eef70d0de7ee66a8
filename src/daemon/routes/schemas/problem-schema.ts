/**
 * The problem JSON every error answer carries, one alternative per problem code with the
 * code's fixed status, built from the catalogue in src/api/problem.ts.
 */
import { Type } from "typebox";
import { type ProblemCode, problemStatuses, problemTitles } from "../../../api/problem.js";
import { named } from "./named-schema.js";

const RejectedCreation = Type.Object(
  {
    status: Type.Integer(),
    code: Type.String(),
    detail: Type.String(),
    rejected_at: Type.String({ format: "date-time" }),
  },
  { additionalProperties: false, description: "the answer a refused creation of this session id got" },
);

function alternative(code: ProblemCode) {
  return Type.Object(
    {
      type: Type.Literal("about:blank"),
      title: Type.String(),
      status: Type.Literal(problemStatuses[code]),
      detail: Type.String({ description: "a sentence for a person" }),
      code: Type.Literal(code),
      ...(code === "resource_not_found" ? { rejected_creation: Type.Optional(RejectedCreation) } : {}),
    },
    { additionalProperties: false, title: problemTitles[code] },
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
