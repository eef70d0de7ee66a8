/**
 * Pending approvals as the page tracks them: the snapshot's `pending_approvals`, then the
 * stream's `approval_requested` and `approval_resolved` events. The page shows them only when
 * the daemon announces the `approvals` capability (`GET /server`).
 *
 * Wire shapes of a daemon with approvals: a tool call that needs a person's answer is listed
 * until someone (this page, the CLI, another client) answers it with
 * `POST /sessions/{id}/approvals/{call_id}` `{"decision":"allow"|"deny","remember"?,"message"?}`
 * (`{"decision":"retry"|"skip"|"done","message"?}` for an `unknown_outcome`).
 */

import type { PendingApproval as ApiPendingApproval } from "../../../src/api/approvals.js";
import type { SessionEvent } from "../../../src/api/session-events.js";

/** The capability name the daemon announces approvals with. */
export const approvalsCapability = "approvals";

/** One tool call waiting for a decision (the contract's shape). */
export type PendingApproval = ApiPendingApproval;

/** The stream events about approvals. */
export type ApprovalEvent = Extract<SessionEvent, { type: "approval_requested" | "approval_resolved" }>;

/**
 * The body of an answer: `allow`/`deny` for an approval, `retry`/`skip`/`done` for a call whose
 * outcome a daemon restart left unknown (`kind` `unknown_outcome`).
 */
export interface ApprovalAnswer {
  decision: "allow" | "deny" | "retry" | "skip" | "done";
  remember?: boolean;
  message?: string;
  /** Who answered, kept with the decision. */
  client_id?: string;
}

/** The pending list after one event (an event of another shape changes nothing). */
export function applyApprovalEvent(
  pending: readonly PendingApproval[],
  event: ApprovalEvent,
): readonly PendingApproval[] {
  const callId = event.data.call_id;
  switch (event.type) {
    case "approval_requested":
      // A `task` child's call, relayed: it is answered at the child's session, not this one.
      if (event.data.session_id !== undefined) return pending;
      if (pending.some((approval) => approval.call_id === callId)) return pending;
      return [...pending, event.data];
    case "approval_resolved":
      if (event.data.session_id !== undefined) return pending;
      return pending.filter((approval) => approval.call_id !== callId);
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The arguments as an object when they are (or parse to) one. */
export function argumentsObject(value: unknown): Record<string, unknown> | null {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return null;
    }
  }
  return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
    ? (parsed as Record<string, unknown>)
    : null;
}
