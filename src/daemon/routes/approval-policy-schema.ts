/**
 * The request schema of an approval policy (the creation field `approval_policy` and the body
 * of `PUT /sessions/{id}/approval-policy`), bounded like config.json's (src/home/approval-policy.ts).
 */
import { Type } from "typebox";
import type { ApprovalPolicy } from "../../api/approvals.js";
import { approvalPolicyLimits } from "../../home/approval-policy.js";
import { wireSchema } from "../http/wire-schema.js";

const Action = Type.Union([Type.Literal("allow"), Type.Literal("ask"), Type.Literal("deny")]);

/** `{"default"?, "rules"?: [{"tool", "pattern"?, "action"}]}`. */
export const ApprovalPolicySchema = wireSchema<ApprovalPolicy>()(
  Type.Object(
    {
      default: Type.Optional(Action),
      rules: Type.Optional(
        Type.Array(
          Type.Object(
            {
              tool: Type.String({ minLength: 1, maxLength: approvalPolicyLimits.tool }),
              pattern: Type.Optional(Type.String({ maxLength: approvalPolicyLimits.pattern })),
              action: Action,
            },
            { additionalProperties: false },
          ),
          { maxItems: approvalPolicyLimits.rules },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);
