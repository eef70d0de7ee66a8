/**
 * Answer schemas of what a session carries beyond its summary: approvals (pending calls, the
 * recorded answers, the session's policy), its settings (provider, model, parameters) and its
 * context (fill, compaction, cost), each exactly its src/api type.
 */
import { Type } from "typebox";
import type {
  ApprovalPolicyAnswer,
  ApprovalRecord,
  MatchedRule,
  PendingApproval,
} from "../../../api/approvals.js";
import type { RequestConfigBody, SessionSettings } from "../../../api/session-settings.js";
import type { CompactAnswer, SessionContext } from "../../../api/session-snapshot.js";
import { wireSchema } from "../../http/wire-schema.js";
import { ApprovalPolicySchema } from "../approval-policy-schema.js";
import { named } from "./named-schema.js";

const Action = Type.Union([Type.Literal("allow"), Type.Literal("ask"), Type.Literal("deny")]);
const Decision = Type.Union([Type.Literal("allow"), Type.Literal("deny")]);
const NullableString = Type.Union([Type.String(), Type.Null()]);
const Time = Type.String({ format: "date-time" });

/** The session's own approval policy, or null (config.json's applies). */
export const NullableApprovalPolicySchema = Type.Union([
  named("ApprovalPolicy", ApprovalPolicySchema),
  Type.Null(),
]);

const MatchedRuleSchema = wireSchema<MatchedRule>()(
  Type.Object(
    {
      source: Type.Union([
        Type.Literal("builtin"),
        Type.Literal("config"),
        Type.Literal("profile"),
        Type.Literal("session"),
        Type.Literal("remembered"),
        Type.Literal("workspace"),
        Type.Literal("ask_user"),
      ]),
      tool: NullableString,
      pattern: NullableString,
      action: Action,
    },
    { additionalProperties: false },
  ),
);

export const PendingApprovalSchema = named(
  "PendingApproval",
  wireSchema<PendingApproval>()(
    Type.Object(
      {
        call_id: Type.String(),
        tool: Type.String(),
        arguments: Type.String(),
        truncated: Type.Optional(
          Type.Object({ arguments: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
        ),
        rule: MatchedRuleSchema,
        run_id: NullableString,
        requested_at: Time,
      },
      { additionalProperties: false },
    ),
  ),
);

/** The fields of a recorded answer (the `approval_resolved` event adds `run_id`). */
export const approvalRecordFields = {
  call_id: Type.String(),
  decision: Decision,
  by: Type.Union([
    Type.Literal("client"),
    Type.Literal("rule"),
    Type.Literal("interrupt"),
    Type.Literal("turn_end"),
  ]),
  client_id: NullableString,
  message: NullableString,
  remember: Type.Union([
    Type.Object(
      { tool: Type.String(), pattern: Type.Optional(Type.String()), action: Action },
      { additionalProperties: false },
    ),
    Type.Null(),
  ]),
  resolved_at: Time,
};

export const ApprovalRecordSchema = named(
  "ApprovalRecord",
  wireSchema<ApprovalRecord>()(Type.Object(approvalRecordFields, { additionalProperties: false })),
);

export const ApprovalPolicyAnswerSchema = wireSchema<ApprovalPolicyAnswer>()(
  Type.Object({ approval_policy: NullableApprovalPolicySchema }, { additionalProperties: false }),
);

const Effort = Type.Union([
  Type.Literal("minimal"),
  Type.Literal("low"),
  Type.Literal("medium"),
  Type.Literal("high"),
  Type.Literal("xhigh"),
]);

const RequestConfigAnswer = wireSchema<RequestConfigBody>()(
  Type.Object(
    {
      max_tokens: Type.Optional(Type.Integer()),
      temperature: Type.Optional(Type.Number()),
      top_p: Type.Optional(Type.Number()),
      top_k: Type.Optional(Type.Integer()),
      reasoning: Type.Optional(
        Type.Union([
          Type.Object({ effort: Effort }, { additionalProperties: false }),
          Type.Object({ budget_tokens: Type.Integer() }, { additionalProperties: false }),
        ]),
      ),
    },
    { additionalProperties: false },
  ),
);

export const SessionSettingsAnswerSchema = named(
  "SessionSettings",
  wireSchema<SessionSettings>()(
    Type.Object(
      {
        provider_profile: NullableString,
        model: NullableString,
        request_config: RequestConfigAnswer,
        effective: Type.Union([
          Type.Null(),
          Type.Object(
            {
              provider_profile: Type.String(),
              protocol: Type.String(),
              model: Type.String(),
              request_config: RequestConfigAnswer,
            },
            { additionalProperties: false },
          ),
        ]),
      },
      { additionalProperties: false },
    ),
  ),
);

export const SessionContextSchema = named(
  "SessionContext",
  wireSchema<SessionContext>()(
    Type.Object(
      {
        used_tokens: Type.Integer({ minimum: 0 }),
        estimated: Type.Boolean(),
        context_window: Type.Integer({ minimum: 0 }),
        max_output_tokens: Type.Integer({ minimum: 0 }),
        fill: Type.Number({ minimum: 0 }),
        compact_threshold: Type.Number(),
        compacting: Type.Boolean(),
        last_compaction: Type.Union([
          Type.Null(),
          Type.Object(
            {
              position: Type.Integer({ minimum: 0 }),
              before_tokens: Type.Integer({ minimum: 0 }),
              after_tokens: Type.Integer({ minimum: 0 }),
            },
            { additionalProperties: false },
          ),
        ]),
        last_compaction_error: NullableString,
        cost_usd: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
        warnings: Type.Array(Type.String()),
      },
      { additionalProperties: false },
    ),
  ),
);

export const CompactAnswerSchema = wireSchema<CompactAnswer>()(
  Type.Object(
    {
      session_id: Type.String(),
      state: Type.Literal("started"),
      before_tokens: Type.Integer({ minimum: 0 }),
      kept_tokens: Type.Integer({ minimum: 0 }),
      first_kept_position: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
);
