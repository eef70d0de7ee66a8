/**
 * Approvals as the HTTP API shows them: the calls a session waits on (a snapshot's
 * `pending_approvals`), the answer a client sends (`POST /sessions/{id}/approvals/{call_id}`) and
 * the recorded decision it gets back, and a session's own policy (`PUT
 * /sessions/{id}/approval-policy`).
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour. The policy's own
 * shape is the model's (src/model/approval-policy.ts); config.json's copy is validated in
 * src/home/approval-policy.ts.
 */
import type {
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalResolver,
  ApprovalRule,
  MatchedRule,
} from "../model/approval-policy.js";

export type {
  ApprovalAction,
  ApprovalDecision,
  ApprovalPolicy,
  ApprovalResolver,
  ApprovalRule,
  MatchedRule,
  RuleSource,
} from "../model/approval-policy.js";

/** A tool call that waits for an answer, as a snapshot lists it and `approval_requested` announces it. */
export interface PendingApproval {
  call_id: string;
  tool: string;
  /**
   * The call's arguments, the JSON text the model wrote. Over 256 KiB it is cut to its first
   * 16 KiB and `truncated.arguments` gives the full size in UTF-8 bytes (the whole text is in
   * the call's history entry).
   */
  arguments: string;
  truncated?: { arguments: number };
  /** The rule that asked. */
  rule: MatchedRule;
  /** The turn that made the call (null for logs that do not say). */
  run_id: string | null;
  requested_at: string;
}

/** Body of `POST /sessions/{id}/approvals/{call_id}`. */
export interface ApprovalAnswerBody {
  decision: ApprovalDecision;
  /** Also allow (or deny) matching calls for the rest of the session (see docs/http-api.md). */
  remember?: boolean;
  /** Told to the model: a deny's reason, or the answer to an `ask_user` question. */
  message?: string;
  /** The answering client's name, kept with the decision. */
  client_id?: string;
}

/** The decision recorded for a call: the answer of the approval route and the `approval_resolved` event. */
export interface ApprovalRecord {
  call_id: string;
  decision: ApprovalDecision;
  by: ApprovalResolver;
  client_id: string | null;
  message: string | null;
  /** The rule an "always" answer added to the session, or null. */
  remember: ApprovalRule | null;
  resolved_at: string;
}

/** Body of `PUT /sessions/{id}/approval-policy`: the session's own policy, null to fall back to config.json's. */
export interface ApprovalPolicyBody {
  approval_policy: ApprovalPolicy | null;
}

/** The answer of `PUT /sessions/{id}/approval-policy`. */
export interface ApprovalPolicyAnswer {
  approval_policy: ApprovalPolicy | null;
}
