/** Wire shapes of approvals for tests: a waiting call and its recorded answer. */
import type { ApprovalRecord, PendingApproval } from "../../src/api/approvals.js";

/** A call that waits for a person (asked by the built-in policy), with `overrides`. */
export function waitingCall(callId: string, overrides: Partial<PendingApproval> = {}): PendingApproval {
  return {
    call_id: callId,
    kind: "approval",
    tool: "write_file",
    arguments: "{}",
    rule: { source: "builtin", tool: null, pattern: null, action: "ask" },
    run_id: "r",
    requested_at: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

/** A client's `allow` of `callId`, with `overrides`. */
export function allowedAnswer(callId: string, overrides: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    call_id: callId,
    decision: "allow",
    by: "client",
    client_id: null,
    answered_by: null,
    answered_from: null,
    message: null,
    remember: null,
    resolved_at: "2026-01-01T00:00:01.000Z",
    ...overrides,
  };
}
