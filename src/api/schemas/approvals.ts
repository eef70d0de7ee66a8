/**
 * Approvals on the wire, as TypeBox schemas and the types derived from them: the calls a session
 * waits on (a snapshot's `pending_approvals`), the answer a client sends (`POST
 * /sessions/{id}/approvals/{call_id}`) and the recorded decision it gets back, and a session's
 * own policy (`PUT /sessions/{id}/approval-policy`).
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. The policy
 * and a matched rule are the model's own types (src/model/approval-policy.ts), carried as they
 * are: their schemas are checked against them (`matchesModel`).
 */
import { type Static, Type } from "typebox";
import type { ApprovalMode, ApprovalPolicy, MatchedRule } from "../../model/approval-policy.js";
import { approvalModes } from "../approval-modes.js";
import { approvalPolicyLimits } from "../approval-policy-limits.js";
import { matchesModel } from "./matches-model.js";
import { named } from "./named-schema.js";
import { closedObject, literalUnion, NullableString, namedObject, Time } from "./parts.js";

const Action = literalUnion("allow", "ask", "deny");
/** `allow`/`deny` answer an approval; `retry`/`skip`/`done` a call whose outcome is unknown. */
const Decision = literalUnion("allow", "deny", "retry", "skip", "done");

/**
 * `{"default"?, "rules"?: [{"tool", "pattern"?, "action"}]}`: the creation field
 * `approval_policy` and the body of `PUT /sessions/{id}/approval-policy`, bounded like
 * config.json's (src/home/approval-policy.ts).
 */
export const ApprovalPolicySchema = named(
  "ApprovalPolicy",
  matchesModel<ApprovalPolicy>()(
    closedObject({
      default: Type.Optional(Action),
      rules: Type.Optional(
        Type.Array(
          closedObject({
            tool: Type.String({ minLength: 1, maxLength: approvalPolicyLimits.tool }),
            pattern: Type.Optional(Type.String({ maxLength: approvalPolicyLimits.pattern })),
            action: Action,
          }),
          { maxItems: approvalPolicyLimits.rules },
        ),
      ),
    }),
  ),
);

/** A session's approval mode (docs/http-api.md, "Approval modes"). */
export const ApprovalModeSchema = named(
  "ApprovalMode",
  matchesModel<ApprovalMode>()(
    Type.Union([
      Type.Literal(approvalModes[0]),
      Type.Literal(approvalModes[1]),
      Type.Literal(approvalModes[2]),
      Type.Literal(approvalModes[3]),
    ]),
  ),
);

/** The session's own approval policy, or null (config.json's applies). */
export const NullableApprovalPolicySchema = Type.Union([ApprovalPolicySchema, Type.Null()]);

const MatchedRuleSchema = matchesModel<MatchedRule>()(
  closedObject({
    source: literalUnion(
      "builtin",
      "config",
      "profile",
      "session",
      "remembered",
      "workspace",
      "ask_user",
      "mode",
      "read_only_command",
      "unknown_outcome",
    ),
    tool: NullableString,
    pattern: NullableString,
    action: Action,
  }),
);

/** A tool call that waits for an answer, as a snapshot lists it and `approval_requested` announces it. */
export const PendingApprovalSchema = namedObject("PendingApproval", {
  call_id: Type.String(),
  /**
   * `approval`: the call waits for leave to run (`allow` | `deny`); `unknown_outcome`: a restart
   * cut the call short and config.json's `onUnknownOutcome` asks a person what became of it
   * (`retry` | `skip` | `done`).
   */
  kind: literalUnion("approval", "unknown_outcome"),
  tool: Type.String(),
  /**
   * The call's arguments, the JSON text the model wrote. Over 256 KiB it is cut to its first
   * 16 KiB and `truncated.arguments` gives the full size in UTF-8 bytes (the whole text is in
   * the call's history entry).
   */
  arguments: Type.String(),
  truncated: Type.Optional(closedObject({ arguments: Type.Integer({ minimum: 0 }) })),
  /** The rule that asked. */
  rule: MatchedRuleSchema,
  /** The turn that made the call (null for logs that do not say). */
  run_id: NullableString,
  requested_at: Time,
});
export type PendingApproval = Static<typeof PendingApprovalSchema>;

/**
 * Body of `POST /sessions/{id}/approvals/{call_id}`: `allow` | `deny` for an `approval`,
 * `retry` | `skip` | `done` for an `unknown_outcome` (the other kind's words are refused).
 */
export const ApprovalAnswerBodySchema = closedObject({
  decision: Decision,
  /** Also allow (or deny) matching calls for the rest of the session (see docs/http-api.md); not for an unknown outcome. */
  remember: Type.Optional(Type.Boolean()),
  /**
   * Told to the model: a deny's reason, the answer to an `ask_user` question, a `skip`'s reason,
   * or a `done` call's result.
   */
  message: Type.Optional(Type.String({ maxLength: 64 * 1024 })),
  /** The answering client's name, kept with the decision. */
  client_id: Type.Optional(Type.String({ maxLength: 512 })),
});
export type ApprovalAnswerBody = Static<typeof ApprovalAnswerBodySchema>;

/** The fields of a recorded answer (the `approval_resolved` event adds `run_id`). */
export const approvalRecordFields = {
  call_id: Type.String(),
  decision: Decision,
  by: literalUnion("client", "rule", "interrupt", "turn_end"),
  client_id: NullableString,
  /** The name of the token the answer came with (`bootstrap`: the daemon's own); null: not recorded. */
  answered_by: NullableString,
  /** The address the answer came from (behind SKEIN_TRUST_PROXY: the forwarded client's); null: not recorded. */
  answered_from: NullableString,
  message: NullableString,
  /** The rule an "always" answer added to the session, or null. */
  remember: Type.Union([
    closedObject({ tool: Type.String(), pattern: Type.Optional(Type.String()), action: Action }),
    Type.Null(),
  ]),
  resolved_at: Time,
};

/** The decision recorded for a call: the answer of the approval route and the `approval_resolved` event. */
export const ApprovalRecordSchema = namedObject("ApprovalRecord", approvalRecordFields);
export type ApprovalRecord = Static<typeof ApprovalRecordSchema>;

/**
 * Body of `PUT /sessions/{id}/approval-policy`: the session's own policy (null to fall back to
 * config.json's), its approval mode, or both; what is left out stays as it is.
 */
export const ApprovalPolicyBodySchema = closedObject(
  {
    approval_policy: Type.Optional(NullableApprovalPolicySchema),
    mode: Type.Optional(ApprovalModeSchema),
  },
  { minProperties: 1 },
);
export type ApprovalPolicyBody = Static<typeof ApprovalPolicyBodySchema>;

/** The answer of `PUT /sessions/{id}/approval-policy`: the session's policy and mode now. */
export const ApprovalPolicyAnswerSchema = closedObject({
  approval_policy: NullableApprovalPolicySchema,
  approval_mode: ApprovalModeSchema,
});
export type ApprovalPolicyAnswer = Static<typeof ApprovalPolicyAnswerSchema>;
