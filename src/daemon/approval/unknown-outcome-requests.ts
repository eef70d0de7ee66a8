/**
 * Calls whose outcome a crash left unknown and that config.json's `onUnknownOutcome` says a
 * person decides (`ask`): at recovery each gets an `approval_requested` entry whose rule's source
 * is `unknown_outcome` (instead of the "outcome unknown" result), and stays open; the new turn
 * waits for the answer like any approval. The answers are `retry` (the call runs again), `skip`
 * (the model is told it did not run) and `done` (the model is told it ran; `message` is its
 * result); an ordinary request takes `allow` and `deny` only.
 *
 * Boundary rule: pure functions of the logged requests, the policy and the calls.
 */
import type { ApprovalAnswerBody } from "../../api/approvals.js";
import type { LogEntry } from "../../log/entries.js";
import type { PendingApproval as LoggedRequest } from "../../log/restored-state.js";
import type { ApprovalDecision, UnknownOutcomeDecision } from "../../model/approval-policy.js";
import type { ToolCallItem } from "../../model/items.js";
import {
  type UnknownOutcomePolicy,
  unknownOutcomeActionFor,
  unknownOutcomeDecisions,
} from "../../model/unknown-outcome.js";
import { taskToolName } from "./approval-policy.js";

/** What a waiting call waits for: a person's leave to run (`approval`) or their word on a cut call. */
export type ApprovalKind = "approval" | "unknown_outcome";

/** The kind of a logged request. */
export function approvalKindOf(request: Pick<LoggedRequest, "rule">): ApprovalKind {
  return request.rule.source === "unknown_outcome" ? "unknown_outcome" : "approval";
}

/** Whether `decision` answers an unknown outcome. */
export function isUnknownOutcomeDecision(decision: ApprovalDecision): decision is UnknownOutcomeDecision {
  return (unknownOutcomeDecisions as readonly string[]).includes(decision);
}

/** Why `body` cannot answer `request` (a decision of the other kind, `remember` on an unknown outcome); null when it can. */
export function answerProblem(request: Pick<LoggedRequest, "rule">, body: ApprovalAnswerBody): string | null {
  if (approvalKindOf(request) === "unknown_outcome") {
    if (!isUnknownOutcomeDecision(body.decision)) {
      return `its outcome is unknown (a restart cut it short): answer "retry", "skip" or "done", not "${body.decision}"`;
    }
    if (body.remember === true) return "`remember` does not apply to an unknown outcome";
    return null;
  }
  return isUnknownOutcomeDecision(body.decision)
    ? `it waits for approval: answer "allow" or "deny"; "${body.decision}" answers only a call whose outcome is unknown`
    : null;
}

/**
 * Whether recovery leaves `call` (open, its outcome unknown to the log) waiting for a person:
 * `policy` says `ask` for its tool. A `task` call is never asked (it is run again anyway).
 */
export function asksAboutUnknownOutcome(
  policy: UnknownOutcomePolicy | undefined,
  call: ToolCallItem,
): boolean {
  return call.name !== taskToolName && unknownOutcomeActionFor(policy, call.name).action === "ask";
}

/** The request that leaves `call` waiting for a person's word on its unknown outcome. */
export function unknownOutcomeRequest(
  call: ToolCallItem,
  policy: UnknownOutcomePolicy | undefined,
  ts: number,
  turnId: string,
): LogEntry {
  const { key } = unknownOutcomeActionFor(policy, call.name);
  return {
    kind: "approval_requested",
    ts,
    call_id: call.call_id,
    tool: call.name,
    rule: { source: "unknown_outcome", tool: key, pattern: null, action: "ask" },
    turn_id: turnId,
  };
}
