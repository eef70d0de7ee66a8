/**
 * Approvals as the HTTP API shows them: the calls a session waits on (a snapshot's
 * `pending_approvals`), the answer a client sends (`POST /sessions/{id}/approvals/{call_id}`) and
 * the recorded decision it gets back, and a session's own policy (`PUT
 * /sessions/{id}/approval-policy`).
 *
 * Boundary rule: types only. The wire's are the static types of their schemas
 * (schemas/approvals.ts); the policy's own shape is the model's (src/model/approval-policy.ts);
 * config.json's copy is validated in src/home/approval-policy.ts.
 */
export type * from "../model/approval-policy.js";
export type {
  ApprovalAnswerBody,
  ApprovalPolicyAnswer,
  ApprovalPolicyBody,
  ApprovalRecord,
  PendingApproval,
} from "./schemas/approvals.js";
